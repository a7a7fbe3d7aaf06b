internal import COpenSSL
import PushMockCore

/// The server's side of the WebSocket opening handshake (RFC 6455 §4.2): the request is a GET
/// over HTTP/1.1 with `Upgrade: websocket`, `Connection: Upgrade`, a 16-byte
/// `Sec-WebSocket-Key` and `Sec-WebSocket-Version: 13`; the answer is `101 Switching
/// Protocols` with the key's `Sec-WebSocket-Accept`, or 400 (426 with the version this server
/// speaks, for another version).
enum WebSocketHandshake {
    /// RFC 6455 §1.3's GUID, appended to the key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The answer to an opening handshake, and whether it opened the connection.
    static func answer(_ request: Request, isHTTP10: Bool) -> (response: Response, opens: Bool) {
        func refuse(_ why: String) -> (Response, Bool) { (.text(400, why), false) }
        guard request.method == "GET", !isHTTP10 else { return refuse("A WebSocket opens with a GET over HTTP/1.1.") }
        let connection = request.header("connection")?.lowercased() ?? ""
        guard connection.split(separator: ",").contains(where: { $0.trimmingSpaces == "upgrade" }) else {
            return refuse("A WebSocket handshake needs Connection: Upgrade.")
        }
        guard request.header("sec-websocket-version")?.trimmingSpaces == "13" else {
            return (
                Response(status: 426, headers: [("Sec-WebSocket-Version", "13")], body: Array("Use WebSocket version 13.".utf8)),
                false
            )
        }
        guard let key = request.header("sec-websocket-key")?.trimmingSpaces, Base64URL.decode(key)?.count == 16 else {
            return refuse("Sec-WebSocket-Key must be 16 bytes in base64.")
        }
        let headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept(key)),
        ]
        return (Response(status: 101, headers: headers), true)
    }

    /// base64(SHA-1(key ‖ GUID)).
    static func accept(_ key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        var encoded = [UInt8](repeating: 0, count: 29)
        let n = EVP_EncodeBlock(&encoded, digest, 20)
        return String(decoding: encoded.prefix(Int(n)), as: UTF8.self)
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
