/// `POST /v1/projects/{project}/messages:send` (protocol.md §B): bearer auth, the Message
/// resource's validation, quotas, then the same fan-out and device model as legacy sends.
extension Gateway {
    func v1Send(_ request: Request, _ params: [String: String]) -> Reply {
        let projectID = params["project"]!
        if let failure = bearerFailure(request, projectID: projectID) {
            if let p = projects[configuration.project] {
                log.append(kind: .authenticationError, time: clock.now(), projectID: p.id, projectNumber: p.number,
                           reason: failure.status == 403 ? "permission_denied" : "invalid_credentials")
            }
            return .response(failure)
        }
        guard let project = googleAPIProject(projectID) else { return .response(Self.permissionDenied(projectID)) }
        return withChaos(.v1, project, request) { v1Send(request, project) }
    }

    private func v1Send(_ request: Request, _ project: Project) -> Reply {
        if storeFailing() { return .response(storeUnavailable(request)) }
        do {
            let send = try V1Request.decode(request.body)
            try consumeQuota(project)
            return .response(try v1Deliver(send, request, project))
        } catch {
            log.append(kind: error.event, time: clock.now(), projectID: project.id, projectNumber: project.number,
                       token: Self.v1Token(request.body), reason: error.reason)
            return .response(error.response)
        }
    }

    private static func v1Token(_ body: [UInt8]) -> String? {
        (try? JSONParser.parse(body))?["message"]?["token"]?.stringValue
    }

    private func v1Deliver(_ send: V1Request, _ request: Request, _ project: Project) throws(V1Error) -> Response {
        let options = send.content.options
        func name(_ id: String) -> Response {
            // Written as bytes: this is every send's answer. Project ids and message ids need
            // no escaping, but are escaped all the same.
            var w = JSONWriter(capacity: 48 + project.id.utf8.count + id.utf8.count)
            w.beginObject()
            w.key("name")
            w.string(joining: "projects/", project.id, "/messages/", id)
            w.endObject()
            return .json(200, w)
        }
        switch send.target {
        case .token, .fid:
            let device = try v1Device(send, project)
            if send.validateOnly {
                log.append(kind: .messageAccepted, time: clock.now(), projectID: project.id, projectNumber: project.number,
                           messageID: "fake_message_id", messageType: options.messageType, device: device, reason: "dry_run")
                return name("fake_message_id")
            }
            if let error = deviceError(device, options, project: project) { throw Self.v1Error(error) }
            if let injected = injectedFailure(device, project, surface: .v1) {
                var e = Self.v1Error(injected)
                e.reason = Self.chaosReason
                throw e
            }
            if device.platform == .ios, !options.isNotification,
               send.message["apns"]?["headers"]?["apns-priority"]?.stringValue == "10" {
                throw .invalid("Data messages to Apple devices must have apns-priority 5 (normal priority).", field: "message.apns.headers")
            }
            try consumeDeviceRate(device)
            let id = ids.recipient()
            let message = record(send, .token, request, project, id: id, bulkID: nil)
            deliver(message, messageID: id, to: device, project: project)
            return name(id)
        case .topic(let topic):
            if send.validateOnly { return name("fake_message_id") }
            return name(v1Broadcast(send, .topic(topic), subscribers(topic, in: project), request, project))
        case .condition(let text, let condition):
            if send.validateOnly { return name("fake_message_id") }
            return name(v1Broadcast(send, .condition(text), devices(matching: condition, in: project), request, project))
        }
    }

    /// A topic or condition send; returns the topic message id.
    private func v1Broadcast(_ send: V1Request, _ target: Message.Target, _ devices: some Sequence<Device>, _ request: Request,
                             _ project: Project) -> String {
        let bulk = ids.bulk()
        let message = record(send, target, request, project, id: String(bulk), bulkID: bulk)
        broadcast(message, to: devices, project: project)
        return message.id
    }

    /// The device a token or FID send addresses, or FCM's error for it.
    private func v1Device(_ send: V1Request, _ project: Project) throws(V1Error) -> Device {
        switch send.target {
        case .fid(let fid):
            guard let device = project.device(fid: fid), device.token != nil else { throw .unregistered() }
            return device
        case .token(let token):
            switch lookup(token: token, project: project) {
            case .success(let device): return device
            case .failure(let error): throw Self.v1Error(error)
            }
        default:
            throw .invalid("Recipient of the message is not set.")
        }
    }

    /// HTTP v1's answer for a legacy per-recipient error (protocol.md §B.7).
    static func v1Error(_ error: LegacyError) -> V1Error {
        var e: V1Error
        switch error {
        case .notRegistered, .missingRegistration: return .unregistered()
        case .invalidRegistration:
            e = .invalid("The registration token is not a valid FCM registration token")
        case .mismatchSenderID:
            e = V1Error(status: 403, canonical: "PERMISSION_DENIED", message: "SenderId mismatch", fcmCode: "SENDER_ID_MISMATCH")
        case .invalidAPNsCredential:
            e = V1Error(status: 401, canonical: "UNAUTHENTICATED", message: "Auth error from APNS or Web Push Service",
                        fcmCode: "THIRD_PARTY_AUTH_ERROR")
            e.details.append("{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.ApnsError\",\"statusCode\":403,\"reason\":\"InvalidProviderToken\"}")
        case .invalidPackageName:
            e = .invalid("The restricted package name does not match the registration token's app.")
        case .deviceMessageRateExceeded:
            return quotaExceeded("Device message rate exceeded.", retryAfter: 60_000_000)
        case .unavailable:
            e = V1Error(status: 503, canonical: "UNAVAILABLE", message: "The service is currently unavailable.", fcmCode: "UNAVAILABLE")
            e.retryAfter = 1
        case .internalServerError:
            e = V1Error(status: 500, canonical: "INTERNAL", message: "Internal error encountered.", fcmCode: "INTERNAL")
        case .messageTooBig, .invalidDataKey, .invalidTTL:
            e = .invalid("Request contains an invalid argument.")
        }
        e.event = error.event
        e.reason = error.reason
        return e
    }

    private func record(_ send: V1Request, _ target: Message.Target, _ request: Request, _ project: Project,
                        id: String, bulkID: Int64?) -> Message {
        accept(api: "v1", format: .v1, options: send.content.options, target: target, request: request,
               project: project, id: id, bulkID: bulkID)
    }
}
