/// A project's Web Push certificate (docs/web-push.md, "FCM to a browser"): the VAPID key pair
/// FCM signs its pushes to browsers with, as the console's Cloud Messaging settings show it.
extension ControlCredentials {
    /// `GET .../webPushKey`: the key pair, made on first use. The public key is the
    /// `vapidKey` a web app passes to `getToken`.
    func webPushKey(_ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        // Only a gateway built without the server's cryptography (Core's tests, the fuzzer) has none.
        guard let key = credentials.webPushKey(of: project) else {
            throw ControlError(response: .googleError(501, "UNIMPLEMENTED", "This server has no Web Push cryptography."))
        }
        return .response(.json(200, Self.json(key)))
    }

    /// `PUT .../webPushKey` with `{"private_key": "<base64url>"}`: the console's "Import
    /// existing key pair", for an app whose `vapidKey` is already fixed.
    func importWebPushKey(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let obj = try Control.body(request, allowed: ["private_key", "public_key"])
        guard let text = obj["private_key"]?.stringValue, let bytes = Base64URL.decode(text),
            let key = credentials.importWebPushKey(bytes, into: project)
        else { throw Control.invalid("Field 'private_key' must be a P-256 private key: 32 bytes, base64url.") }
        if let given = obj["public_key"]?.stringValue, Base64URL.decode(given) != key.publicKey {
            throw Control.invalid("Field 'public_key' is not the public key of 'private_key'.")
        }
        return .response(.json(200, Self.json(key)))
    }

    private static func json(_ key: WebPushKeyPair) -> String {
        var w = JSONWriter(capacity: 200)
        w.beginObject()
        w.member("public_key", Base64URL.encode(key.publicKey))
        w.member("private_key", Base64URL.encode(key.privateKey))
        w.endObject()
        return w.text
    }
}
