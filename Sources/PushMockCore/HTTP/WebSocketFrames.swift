/// RFC 6455 §5 framing on the server's side, knowing nothing of what the messages mean: client
/// frames are read (each must be masked), fragments joined into whole messages, control frames
/// handed up as they come; server frames are written unmasked. Every violation is a failure
/// with the close code RFC 6455 §7.4.1 gives it. Pure, so it can be fuzzed.
public struct WebSocketReader {
    public enum Frame: Equatable {
        case text(String)
        case binary([UInt8])
        case ping([UInt8])
        case pong([UInt8])
        /// The peer's close: its status code (nil when it gave none) and reason.
        case close(code: Int?, reason: String)
    }

    /// A violation and the status code to close with.
    public struct Failure: Error, Equatable {
        public let code: Int
        public let reason: String

        static func protocolError(_ reason: String) -> Failure { Failure(code: 1002, reason: reason) }
    }

    /// The largest whole message taken (a frame's payload, or fragments joined).
    public let maxMessage: Int
    /// The data message being joined from fragments, and its opcode.
    private var fragments: [UInt8] = []
    private var fragmentOpcode: UInt8?

    public init(maxMessage: Int) { self.maxMessage = maxMessage }

    /// Reads the next frame at the start of `bytes`: how many bytes it took (0 when a frame is
    /// not whole yet) and what it completed (nil for a fragment of a longer message).
    public mutating func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> (consumed: Int, frame: Frame?) {
        guard bytes.count >= 2 else { return (0, nil) }
        let fin = bytes[0] & 0x80 != 0
        let opcode = bytes[0] & 0x0F
        guard bytes[0] & 0x70 == 0 else { throw .protocolError("reserved bits set without an extension") }
        guard bytes[1] & 0x80 != 0 else { throw .protocolError("a client frame must be masked") }
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return (0, nil) }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            guard length >= 126 else { throw .protocolError("length not in its shortest form") }
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return (0, nil) }
            guard bytes[2] & 0x80 == 0 else { throw .protocolError("length's most significant bit set") }
            var n: UInt64 = 0
            for i in 2..<10 { n = n << 8 | UInt64(bytes[i]) }
            guard n >= 65_536 else { throw .protocolError("length not in its shortest form") }
            guard n <= UInt64(maxMessage) else { throw Failure(code: 1009, reason: "message too big") }
            length = Int(n)
            offset = 10
        }
        let isControl = opcode & 0x08 != 0
        if isControl {
            guard fin else { throw .protocolError("a control frame must not be fragmented") }
            guard length <= 125 else { throw .protocolError("a control frame's payload is at most 125 bytes") }
        }
        guard length <= maxMessage, fragments.count + length <= maxMessage else {
            throw Failure(code: 1009, reason: "message too big")
        }
        guard bytes.count >= offset + 4 + length else { return (0, nil) }
        let mask = (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        offset += 4
        var payload = [UInt8](repeating: 0, count: length)
        for i in 0..<length {
            let m: UInt8
            switch i & 3 {
            case 0: m = mask.0
            case 1: m = mask.1
            case 2: m = mask.2
            default: m = mask.3
            }
            payload[i] = bytes[offset + i] ^ m
        }
        let consumed = offset + length
        switch opcode {
        case 0x8: return (consumed, try Self.close(payload))
        case 0x9: return (consumed, .ping(payload))
        case 0xA: return (consumed, .pong(payload))
        case 0x1, 0x2:
            guard fragmentOpcode == nil else { throw .protocolError("a new message began inside a fragmented one") }
            if !fin {
                fragmentOpcode = opcode
                fragments = payload
                return (consumed, nil)
            }
            return (consumed, try Self.message(opcode, payload))
        case 0x0:
            guard let first = fragmentOpcode else { throw .protocolError("a continuation frame with no message to continue") }
            fragments += payload
            guard fin else { return (consumed, nil) }
            let whole = fragments
            fragments = []
            fragmentOpcode = nil
            return (consumed, try Self.message(first, whole))
        default:
            throw .protocolError("unknown opcode \(opcode)")
        }
    }

    private static func message(_ opcode: UInt8, _ payload: [UInt8]) throws(Failure) -> Frame {
        guard opcode == 0x1 else { return .binary(payload) }
        guard let text = String(validating: payload, as: UTF8.self) else {
            throw Failure(code: 1007, reason: "a text message that is not UTF-8")
        }
        return .text(text)
    }

    /// A close frame's body: nothing, or a two-byte status code and a UTF-8 reason.
    private static func close(_ payload: [UInt8]) throws(Failure) -> Frame {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolError("a close frame with a one-byte body") }
        let code = Int(payload[0]) << 8 | Int(payload[1])
        // Codes a peer may send (RFC 6455 §7.4.1-2); 1005, 1006 and 1015 are never on the wire.
        guard (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code) else {
            throw .protocolError("close code \(code) is not one a peer may send")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            throw Failure(code: 1007, reason: "a close reason that is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }
}

/// Server frames (RFC 6455 §5.2): unmasked, never fragmented.
public enum WebSocketWriter {
    public static func text(_ s: String) -> [UInt8] { frame(0x1, Array(s.utf8)) }
    public static func ping(_ payload: [UInt8]) -> [UInt8] { frame(0x9, payload) }
    public static func pong(_ payload: [UInt8]) -> [UInt8] { frame(0xA, payload) }

    /// A close frame with a status code and a reason cut to fit a control frame.
    public static func close(code: Int, reason: String) -> [UInt8] {
        frame(0x8, [UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)] + Array(reason.utf8.prefix(123)))
    }

    static func frame(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        out.reserveCapacity(payload.count + 10)
        switch payload.count {
        case ..<126: out.append(UInt8(payload.count))
        case ..<65_536: out += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(UInt64(payload.count) >> UInt64(shift) & 0xFF)) }
        }
        return out + payload
    }
}
