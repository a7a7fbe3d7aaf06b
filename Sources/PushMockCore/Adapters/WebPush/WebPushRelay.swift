/// FCM's side of a send to a browser (docs/web-push.md, "FCM to a browser"): the Firebase JS
/// SDK's payload, encrypted for the device's push subscription (RFC 8291, `aes128gcm`), signed
/// with the project's VAPID key (RFC 8292), POSTed to the subscription's endpoint with the
/// send's `TTL`, `Urgency` and `Topic`. The push service checks and delivers it as any other
/// push; a refusal is the FCM send's drop for that device. Loop thread only.
final class WebPushRelay: PushServiceRelay {
    private let api: WebPushAPI
    private let credentials: Credentials
    private let crypto: any WebPushCrypto
    private let random: RandomSource

    init(api: WebPushAPI, credentials: Credentials, crypto: any WebPushCrypto, random: RandomSource) {
        self.api = api
        self.credentials = credentials
        self.crypto = crypto
        self.random = random
    }

    /// FCM's VAPID `sub`: who to contact about its pushes (its real value is not public).
    static let subject = "https://fcm.googleapis.com/"

    func carry(_ message: Message, messageID: String, to device: Device, project: Project) {
        guard let sub = device.pushSubscription, let request = request(message, messageID: messageID, to: sub, project: project)
        else { return drop(message, messageID, device, project, reason: "web_push_keys_unavailable") }
        let reply = api.push(Self.service(sub.browser), request, PathParameters(.token, sub.token), carrying: message)
        guard case .response(let r) = reply else {
            return drop(message, messageID, device, project, reason: "push_service_dropped")
        }
        if r.status != 201 { drop(message, messageID, device, project, reason: "push_service_\(r.status)") }
    }

    /// The push service refused FCM's push: the send is dropped for this device.
    private func drop(_ message: Message, _ messageID: String, _ device: Device, _ project: Project, reason: String) {
        api.parts.log.append(
            kind: .messageDropped, time: api.parts.clock.now(), projectID: project.id, projectNumber: project.number,
            message: message, messageID: messageID, device: device, reason: reason)
    }

    /// The POST FCM makes to the subscription's endpoint. To its own subscriptions (a real
    /// browser's on FCM's endpoint, delivered over MCS) FCM encrypts with `aesgcm`, the one
    /// coding firebase-messaging reads (Chrome reads both), and signs only when the
    /// registration named an application key: with the default key it is FCM's own push
    /// (docs/fcm-clients.md, "FCM to a registered browser"). Elsewhere, `aes128gcm` and VAPID.
    private func request(_ message: Message, messageID: String, to sub: PushSubscription, project: Project) -> Request? {
        var payload = JSONWriter(capacity: 512)
        payload.value(.object(WebRendering.internalPayload(message: message, messageID: messageID)))
        guard let sender = try? crypto.makeP256KeyPair() else { return nil }
        let encoding = ContentEncoding(crypto: crypto)
        let salt = random.bytes(16)
        let ownService = sub.isRemote && sub.browser == .chrome
        var headers: [(name: String, value: String)] = [
            ("Host", String(sub.origin.drop { $0 != "/" }.dropFirst(2))), ("TTL", String(message.web.ttl)),
            ("Urgency", message.web.urgency ?? message.web.priority),
            ("Content-Type", "application/octet-stream"),
        ]
        let body: [UInt8]?
        if ownService {
            body = encoding.encryptAESGCM(
                payload.bytes, senderPrivateKey: sender.privateKey, senderPublicKey: sender.publicKey, salt: salt,
                receiverPublicKey: sub.publicKey, auth: sub.auth)
            headers += [
                ("Content-Encoding", "aesgcm"), ("Encryption", "salt=" + Base64URL.encode(salt)),
                ("Crypto-Key", "dh=" + Base64URL.encode(sender.publicKey)),
            ]
        } else {
            body = encoding.encryptAES128GCM(
                payload.bytes, senderPrivateKey: sender.privateKey, senderPublicKey: sender.publicKey, salt: salt,
                receiverPublicKey: sub.publicKey, auth: sub.auth)
            headers.append(("Content-Encoding", "aes128gcm"))
        }
        guard let body else { return nil }
        if !ownService || sub.applicationServerKey != nil {
            guard let key = credentials.webPushKey(of: project), let token = jwt(audience: sub.origin, key: key) else {
                return nil
            }
            headers.append(("Authorization", "vapid t=\(token), k=\(Base64URL.encode(key.publicKey))"))
        }
        headers.append(("Content-Length", String(body.count)))
        if let topic = message.web.collapseKey.map(self.topic) { headers.insert(("Topic", topic), at: 3) }
        var request = Request(method: "POST", target: sub.path, headers: headers, body: body)
        request.secure = sub.origin.hasPrefix("https:")
        return request
    }

    /// A VAPID JWT for the endpoint's origin, valid 12 hours (as pywebpush and web-push make them).
    private func jwt(audience: String, key: WebPushKeyPair) -> String? {
        let exp = Int(api.parts.clock.now() / 1_000_000) + 12 * 3600
        var claims = JSONWriter(capacity: 128)
        claims.beginObject()
        claims.member("aud", audience)
        claims.member("exp", exp)
        claims.member("sub", Self.subject)
        claims.endObject()
        let signed = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(claims.bytes)
        guard let signature = crypto.signES256(message: Array(signed.utf8), privateKey: key.privateKey) else { return nil }
        return signed + "." + Base64URL.encode(signature)
    }

    /// A collapse key as a Web Push `Topic` (RFC 8030 §5.4: at most 32 URL-safe base64
    /// characters): as it is when it is one, else the first 32 characters of its SHA-256.
    private func topic(_ key: String) -> String {
        let fits =
            key.utf8.count <= 32
            && key.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
            }
        return fits ? key : String(Base64URL.encode(crypto.sha256(Array(key.utf8))).prefix(32))
    }

    private static func service(_ browser: Browser) -> WebPushService {
        switch browser {
        case .chrome: .fcm
        case .firefox: .autopush
        case .safari: .apple
        }
    }
}
