/// An accepted push becomes a message: the browser's decryption of it, what the service
/// worker makes of the data, and what the message view shows.
extension WebPushAPI {
    func accept(
        _ request: Request, _ headers: WebPushHeaders, vapidSubject: String?, _ service: WebPushService,
        _ sub: PushSubscription, project: Project, id: String
    ) -> Message {
        var data: [UInt8]?
        var failure: String?
        do throws(ContentEncoding.Failure) { data = try decrypt(request.body, headers.coding, for: sub) } catch {
            failure = error.why
        }
        let handling = ServiceWorker.handle(data ?? [])
        let content = PushContent(
            notification: handling.notification,
            data: data.flatMap { (try? JSONParser.parse($0))?.objectValue },
            priority: headers.urgency == "high" ? .high : .normal, collapseKey: headers.topic, ttl: headers.ttl,
            payload: data, payloadError: failure)
        let format = MessageFormat(direct: true) { _ in content }
        let message = parts.delivery.accept(
            api: "webpush", format: format, options: content.options, target: .token, request: request, project: project,
            id: id, bulkID: nil)
        var details = WebPushDetails(
            service: service, endpoint: sub.endpoint, token: sub.token, coding: headers.coding?.name, ttl: headers.ttl,
            urgency: headers.urgency,
            topic: headers.topic, vapidSubject: vapidSubject, body: request.body, data: data, failure: failure)
        if case .aesgcm(let salt, _, let senderKey)? = headers.coding { details.aesgcm = (salt, senderKey) }
        message.details = details
        return message
    }

    /// The browser's decryption (nil for an empty push).
    private func decrypt(_ body: [UInt8], _ coding: WebPushHeaders.Coding?, for sub: PushSubscription) throws(ContentEncoding
        .Failure)
        -> [UInt8]?
    {
        // A real browser's keys are its own: it decrypts, and says whether it could.
        guard let coding, let encoding, sub.hasKeys else { return nil }
        switch coding {
        case .aes128gcm:
            return try encoding.decryptAES128GCM(body, privateKey: sub.privateKey, publicKey: sub.publicKey, auth: sub.auth)
        case .aesgcm(let salt, let recordSize, let senderKey):
            return try encoding.decryptAESGCM(
                body, salt: salt, recordSize: recordSize, senderKey: senderKey, privateKey: sub.privateKey,
                publicKey: sub.publicKey, auth: sub.auth)
        }
    }
}

/// What a Web Push message keeps besides its content, for the message view: the push
/// service, the endpoint, the RFC 8030 headers, the sender's VAPID `sub`, the body's size and
/// bytes, and the decrypted data or why it did not decrypt.
struct WebPushDetails: MessageDetails {
    let service: WebPushService
    let endpoint: String
    /// The subscription's endpoint token (a real browser's channel is found by it).
    let token: String
    let coding: String?
    let ttl: Int
    let urgency: String?
    let topic: String?
    let vapidSubject: String?
    let body: [UInt8]
    let data: [UInt8]?
    let failure: String?
    /// `aesgcm`'s salt and sender key (from `Encryption` and `Crypto-Key`), which a push
    /// service that forwards the body hands on (MCS's data message).
    var aesgcm: (salt: [UInt8], senderKey: [UInt8])?

    /// The browser is handed no headers: the data only.
    func deviceHeaders(messageID: String) -> [(name: String, value: String)] { [] }

    var shown: [(key: String, value: JSONValue)] {
        var out: [(key: String, value: JSONValue)] = [
            ("push_service", .string(service.name)), ("endpoint", .string(endpoint)),
            ("content_encoding", coding.map { .string($0) } ?? .null), ("ttl", .number(JSONNumber(ttl))),
            ("urgency", .string(urgency ?? "normal")), ("topic", topic.map { .string($0) } ?? .null),
            ("vapid_subject", vapidSubject.map { .string($0) } ?? .null), ("body_bytes", .number(JSONNumber(body.count))),
            ("body_base64url", .string(Base64URL.encode(body))),
        ]
        if let failure {
            out.append(("decryption_error", .string(failure)))
        } else if let data {
            out.append(("data", .string(String(decoding: data, as: UTF8.self))))
            out.append(("data_base64url", .string(Base64URL.encode(data))))
        }
        return out
    }
}

extension WebPushService {
    /// How the message view and the docs name the service.
    var name: String {
        switch self {
        case .fcm: "fcm"
        case .autopush: "autopush"
        case .apple: "apple"
        }
    }
}
