/// `POST /v1/projects/{project}/messages:send` (docs/reference/fcm-v1.md): bearer auth, the
/// Message resource's validation, quotas, then the same fan-out and device model as legacy
/// sends. Loop thread only.
struct V1API {
    let credentials: Credentials
    let directory: ProjectDirectory
    let parts: SendParts

    /// HTTP v1's answer when the delivery log cannot be written: 503 UNAVAILABLE, retry in 10 s.
    static let storeUnavailable: Response = {
        var e = V1Error(.unavailable)
        e.retryAfter = 10
        return e.response
    }()

    func send(_ request: Request, _ params: PathParameters) -> Reply {
        let projectID = params[.project] ?? ""
        if let failure = credentials.bearerFailure(request, projectID: projectID) {
            let p = directory.defaultProject
            parts.log.append(
                kind: .authenticationError, time: parts.clock.now(), projectID: p.id, projectNumber: p.number,
                reason: failure.status == 403 ? "permission_denied" : "invalid_credentials")
            return .response(failure)
        }
        guard let project = credentials.googleAPIProject(projectID) else {
            return .response(Credentials.permissionDenied(projectID))
        }
        // A send chaos refuses is kept, when it can be read, as a refused one would be.
        let kept = { () -> Message? in (try? V1Request.decode(request.body)).map { keep($0, request, project) } }
        return parts.chaos.run(.v1, project, failure: Self.render, keep: kept) { send(request, project) }
    }

    /// An injected failure of a send, as HTTP v1 answers it.
    private static func render(_ failure: ChaosFailure) -> (Response, EventKind) {
        switch failure.code {
        case "QUOTA_EXCEEDED":
            let e = V1Error(OverQuota(scope: .project, retryAfter: Timestamp(failure.retryAfter) * 1_000_000))
            return (e.response, .quotaExceeded)
        case "INTERNAL":
            return (V1Error(.internalError).response, .internalError)
        default:
            var e = V1Error(.unavailable)
            e.retryAfter = failure.retryAfter
            return (e.response, .internalError)
        }
    }

    private func send(_ request: Request, _ project: Project) -> Reply {
        if parts.storeFailing() { return .response(Self.storeUnavailable) }
        let send: V1Request
        do throws(V1Error) { send = try V1Request.decode(request.body) } catch {
            parts.delivery.logRejection(
                error.event, reason: error.reason, project: project, token: Self.v1Token(request.body))
            return .response(error.response)
        }
        do throws(V1Error) {
            do throws(OverQuota) { try parts.quotas.consumeQuota(project) } catch { throw V1Error(error) }
            return .response(try deliver(send, request, project))
        } catch {
            // A send that could be read is kept with its refusal, so `GET .../messages` lists it.
            let message = keep(send, request, project)
            parts.delivery.logRejection(
                error.event, reason: error.reason, project: project, message: message, messageID: message.id,
                device: error.device, token: send.token, type: message.options.messageType)
            return .response(error.response)
        }
    }

    /// A send refused once it was read, kept for `GET .../messages`.
    private func keep(_ send: V1Request, _ request: Request, _ project: Project) -> Message {
        parts.delivery.accept(
            api: "v1", format: V1Request.format, options: send.content.options, target: send.recordTarget,
            request: request, project: project, id: parts.ids.recipient(), bulkID: nil, refused: true)
    }

    /// A send the transport could not read whole (over `--max-body-bytes`, or malformed):
    /// logged in the project it named, as Google's front end refused it.
    func unread(_ request: Request, _ params: PathParameters, _ error: FramingError) {
        let project = directory[params[.project] ?? ""] ?? directory.defaultProject
        parts.delivery.logUnread(error, project: project, storeFailing: parts.storeFailing())
    }

    private static func v1Token(_ body: [UInt8]) -> String? {
        (try? JSONParser.parse(body))?["message"]?["token"]?.stringValue
    }

    private func deliver(_ send: V1Request, _ request: Request, _ project: Project) throws(V1Error) -> Response {
        switch send.target {
        case .token, .fid:
            let device = try self.device(send, project)
            do throws(V1Error) { return try deliver(send, request, project, to: device) } catch {
                var e = error
                e.device = device
                throw e
            }
        case .topic(let topic):
            if send.validateOnly { return Self.name("fake_message_id", in: project) }
            let id = broadcast(send, .topic(topic), parts.delivery.subscribers(topic, in: project), request, project)
            return Self.name(id, in: project)
        case .condition(let text, let condition):
            if send.validateOnly { return Self.name("fake_message_id", in: project) }
            let devices = parts.delivery.devices(matching: condition, in: project)
            return Self.name(broadcast(send, .condition(text), devices, request, project), in: project)
        }
    }

    /// A send's answer, `{"name": "projects/{p}/messages/{id}"}`.
    private static func name(_ id: String, in project: Project) -> Response {
        // Written as bytes: this is every send's answer. Project ids and message ids need
        // no escaping, but are escaped all the same.
        var w = JSONWriter(capacity: 48 + project.id.utf8.count + id.utf8.count)
        w.beginObject()
        w.key("name")
        w.string(joining: "projects/", project.id, "/messages/", id)
        w.endObject()
        return .json(200, w)
    }

    /// A send to one device, or FCM's error for it.
    private func deliver(_ send: V1Request, _ request: Request, _ project: Project, to device: Device) throws(V1Error)
        -> Response
    {
        let options = send.content.options
        if send.validateOnly {
            parts.log.append(
                kind: .messageAccepted, time: parts.clock.now(), projectID: project.id, projectNumber: project.number,
                messageID: "fake_message_id", messageType: options.messageType, device: device, reason: "dry_run")
            return Self.name("fake_message_id", in: project)
        }
        if let refusal = parts.delivery.refusal(of: device, options, project: project) { throw V1Error(refusal) }
        if let scripted = parts.chaos.scriptedRefusal(device) {
            var e = V1Error(scripted)
            e.reason = Chaos.reason
            throw e
        }
        if device.platform == .ios, !options.isNotification,
            send.message["apns"]?["headers"]?["apns-priority"]?.stringValue == "10"
        {
            throw .invalid(
                "Data messages to Apple devices must have apns-priority 5 (normal priority).", field: "message.apns.headers")
        }
        do throws(OverQuota) { try parts.quotas.consumeDeviceRate(device) } catch { throw V1Error(error) }
        let id = parts.ids.recipient()
        let message = record(send, .token, request, project, id: id, bulkID: nil)
        parts.delivery.deliver(message, messageID: id, to: device, project: project)
        return Self.name(id, in: project)
    }

    /// A topic or condition send; returns the topic message id.
    private func broadcast(
        _ send: V1Request, _ target: Message.Target, _ devices: [Device], _ request: Request,
        _ project: Project
    ) -> String {
        let bulk = parts.ids.bulk()
        let message = record(send, target, request, project, id: String(bulk), bulkID: bulk)
        parts.delivery.broadcast(message, to: devices, project: project)
        return message.id
    }

    /// The device a token or FID send addresses, or FCM's error for it.
    private func device(_ send: V1Request, _ project: Project) throws(V1Error) -> Device {
        switch send.target {
        case .fid(let fid):
            guard let device = project.devices.withFID(fid), device.token != nil else { throw .unregistered() }
            return device
        case .token(let token):
            switch parts.delivery.lookup(token: token, project: project) {
            case .success(let device): return device
            case .failure(let refusal): throw V1Error(refusal)
            }
        default:
            throw .invalid("Recipient of the message is not set.")
        }
    }

    private func record(
        _ send: V1Request, _ target: Message.Target, _ request: Request, _ project: Project,
        id: String, bulkID: Int64?
    ) -> Message {
        parts.delivery.accept(
            api: "v1", format: V1Request.format, options: send.content.options, target: target, request: request,
            project: project, id: id, bulkID: bulkID)
    }
}
