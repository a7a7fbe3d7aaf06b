/// `POST /fcm/send` (and `/gcm/send`): authenticate, decode, validate, fan out, answer as
/// FCM did (docs/reference/fcm-legacy.md). Loop thread only.
struct LegacyAPI {
    let auth: LegacyAuth
    let parts: SendParts

    /// The legacy API's answer when the delivery log cannot be written: a bare 503 with the
    /// back-off it asks for.
    static let storeUnavailable = GoogleFrontEnd.unavailable

    func send(_ request: Request) -> Reply {
        guard let project = auth.project(request) else { return auth.unauthorized(request) }
        // A send chaos refuses whole is kept as a failed send of one recipient, the request as sent.
        let keep = { () -> Message? in
            (try? LegacyRequest.decode(request)).map {
                record($0, .token, request, project, id: parts.ids.recipient(), bulkID: nil, refused: true)
            }
        }
        return parts.chaos.run(.legacy, project, failure: Self.render, keep: keep) { send(request, project) }
    }

    /// A send the transport could not read whole (over `--max-body-bytes`, or malformed):
    /// logged in the project its key names, as Google's front end refused it.
    func unread(_ request: Request, _ params: PathParameters, _ error: FramingError) {
        let project = auth.project(request) ?? parts.delivery.directory.defaultProject
        parts.delivery.logUnread(error, project: project, storeFailing: parts.storeFailing())
    }

    /// An injected failure of the whole request: the status FCM answered, with `Retry-After`
    /// on a 503.
    private static func render(_ failure: ChaosFailure) -> (Response, EventKind) {
        if failure.code == "500" { return (.text(500, "Internal Server Error"), .internalError) }
        let r = Response(
            status: 503,
            headers: [("Retry-After", String(failure.retryAfter)), ("Content-Type", "text/plain; charset=UTF-8")],
            body: Array("Unavailable".utf8))
        return (r, .internalError)
    }

    private func send(_ request: Request, _ project: Project) -> Reply {
        if parts.storeFailing() { return .response(Self.storeUnavailable) }
        let send: LegacyRequest
        do {
            send = try LegacyRequest.decode(request)
        } catch {
            parts.log.append(
                kind: .invalidParameters, time: parts.clock.now(), projectID: project.id,
                projectNumber: project.number, reason: "bad_request")
            return .response(.text(400, error.text))
        }
        switch send.target {
        case .to(let to) where Topic.isPrefixed(to) && !send.isForm:
            let name = Topic.bareName(to)
            guard Topic.isValidName(name) else {
                parts.delivery.logRejection(.invalidParameters, reason: "bad_request", project: project, type: .topic)
                return .response(.text(400, "Invalid \"to\" field: \(to)\n"))
            }
            return .response(topicSend(send, .topic(name), request, project))
        case .condition(let text):
            do {
                let condition = try Condition.parse(text)
                return .response(topicSend(send, .condition(text), request, project, condition: condition))
            } catch {
                parts.delivery.logRejection(.invalidParameters, reason: "bad_request", project: project, type: .topic)
                return .response(.text(400, "Invalid \"condition\" field: \(error.message)\n"))
            }
        case .to(let key) where project.groupsByKey[key] != nil && !send.isForm:
            return .response(groupSend(send, project.groupsByKey[key]!, request, project))
        case .to(let token):
            return .response(multicast(send, CollectionOfOne(token), request, project))
        case .registrationIDs(let tokens):
            return .response(multicast(send, tokens, request, project))
        case .none:
            return .response(multicast(send, CollectionOfOne(""), request, project))
        }
    }

    private func record(
        _ send: LegacyRequest, _ target: Message.Target, _ request: Request, _ project: Project,
        id: String, bulkID: Int64?, refused: Bool = false
    ) -> Message {
        parts.delivery.accept(
            api: "legacy", format: send.isForm ? LegacyRequest.formFormat : LegacyRequest.jsonFormat,
            options: send.content.options,
            target: target, request: request, project: project, id: id, bulkID: bulkID, dryRun: send.dryRun,
            refused: refused)
    }

    /// What a send does for one token: the device, or the error its result shows, with the
    /// message-wide error, injected failures and the device's rate limit applied.
    private func outcome(
        of token: String, _ send: LegacyRequest, _ messageError: LegacyError?,
        _ project: Project
    ) -> Result<Device, RecipientFailure> {
        let device: Device
        switch parts.delivery.check(token: token, send.content.options, project: project) {
        case .success(let d): device = d
        case .failure(let refusal): return .failure(RecipientFailure(LegacyError(refusal)))
        }
        if let messageError { return .failure(RecipientFailure(messageError)) }
        if let scripted = parts.chaos.scriptedRefusal(device) {
            return .failure(RecipientFailure(LegacyError(scripted), injected: true))
        }
        if let code = parts.chaos.perRecipientFailure(.legacy, project), let rolled = LegacyError(rawValue: code) {
            return .failure(RecipientFailure(rolled, injected: true))
        }
        if !send.dryRun, parts.quotas.takeDeviceRate(device) != nil {
            return .failure(RecipientFailure(.deviceMessageRateExceeded))
        }
        return .success(device)
    }

    /// Token and `registration_ids` sends: one result per token, in order. (A collection, so
    /// that a send to one token makes no array for it.)
    private func multicast(
        _ send: LegacyRequest, _ tokens: some Collection<String>, _ request: Request, _ project: Project
    ) -> Response {
        let multicastID = send.dryRun ? -1 : parts.ids.bulk()
        let messageError = LegacyValidation.messageError(send, topicLike: false)
        // A token send is known by its one recipient's message id; a multicast by its
        // multicast id, with each recipient's id indexed to it.
        let single = tokens.count == 1
        let singleID = single ? parts.ids.recipient() : ""
        let message = record(
            send, single ? .token : .multicast, request, project,
            id: single ? singleID : String(multicastID), bulkID: single ? nil : multicastID)
        var results = JSONWriter(capacity: 16 + tokens.count * 48)
        results.beginArray()
        var failures = 0
        var formLine = ""
        for token in tokens {
            let outcome = outcome(of: token, send, messageError, project)
            results.beginObject()
            switch outcome {
            case .failure(let failure):
                let error = failure.error
                parts.delivery.logRejection(
                    error.event, reason: failure.reason, project: project, message: message,
                    device: project.devices.withToken(token), token: token, type: message.options.messageType)
                // Plain text signals these with the status, not a line (docs/reference/fcm-legacy.md §A.5).
                if send.isForm, error == .unavailable { return .text(503, "") }
                if send.isForm, error == .internalServerError { return .text(500, "") }
                failures += 1
                results.member("error", error.rawValue)
                if send.isForm { formLine = "Error=" + error.rawValue }
            case .success(let device) where send.dryRun:
                parts.log.append(
                    kind: .messageAccepted, time: parts.clock.now(), projectID: project.id, projectNumber: project.number,
                    message: message, messageID: "fake_message_id", device: device, reason: "dry_run")
                results.member("message_id", "fake_message_id")
                if send.isForm { formLine = "id=fake_message_id" }
            case .success(let device):
                let id = single ? singleID : parts.ids.recipient()
                if !single { project.messages.addRecipient(id, of: message) }
                parts.delivery.deliver(message, messageID: id, to: device, project: project)
                results.member("message_id", id)
                if send.isForm { formLine = "id=" + id }
            }
            results.endObject()
        }
        results.endArray()
        if send.isForm { return .text(200, formLine + "\n") }
        var w = JSONWriter(capacity: 96 + results.byteCount)
        w.beginObject()
        w.key("multicast_id")
        w.int64(multicastID)
        w.member("success", tokens.count - failures)
        w.member("failure", failures)
        w.member("canonical_ids", 0)
        w.key("results")
        w.raw(results)
        w.endObject()
        return .json(200, w)
    }

    /// Topic and condition sends: `{"message_id": N}` or `{"error": code}`.
    private func topicSend(
        _ send: LegacyRequest, _ target: Message.Target, _ request: Request, _ project: Project,
        condition: Condition? = nil
    ) -> Response {
        if let error = LegacyValidation.messageError(send, topicLike: true) {
            parts.delivery.logRejection(error.event, reason: error.reason, project: project, type: .topic)
            return .json(200, "{\"error\":\"\(error.rawValue)\"}")
        }
        if send.dryRun {
            parts.log.append(
                kind: .messageAccepted, time: parts.clock.now(), projectID: project.id, projectNumber: project.number,
                messageID: "fake_message_id", messageType: .topic, reason: "dry_run")
            return .json(200, "{\"message_id\":-1}")
        }
        let bulk = parts.ids.bulk()
        let id = String(bulk)
        let message = record(send, target, request, project, id: id, bulkID: bulk)
        if let condition {
            parts.delivery.broadcast(message, to: parts.delivery.devices(matching: condition, in: project), project: project)
        } else if case .topic(let name) = target {
            parts.delivery.broadcast(message, to: parts.delivery.subscribers(name, in: project), project: project)
        }
        return .json(200, "{\"message_id\":\(id)}")
    }

    /// A send to a device group's notification key: `{success, failure, failed_registration_ids}`.
    private func groupSend(_ send: LegacyRequest, _ group: DeviceGroup, _ request: Request, _ project: Project) -> Response {
        let multicastID = parts.ids.bulk()
        let messageError = LegacyValidation.messageError(send, topicLike: false)
        let message = record(send, .group(group.name), request, project, id: String(multicastID), bulkID: multicastID)
        var failed: [String] = []
        for token in group.tokens {
            let outcome = outcome(of: token, send, messageError, project)
            switch outcome {
            case .failure(let failure):
                parts.delivery.logRejection(
                    failure.error.event, reason: failure.reason, project: project, message: message,
                    device: project.devices.withToken(token), token: token)
                failed.append(token)
            case .success(let device) where !send.dryRun:
                let id = parts.ids.recipient()
                project.messages.addRecipient(id, of: message)
                parts.delivery.deliver(message, messageID: id, to: device, project: project)
            case .success: break
            }
        }
        var w = JSONWriter()
        w.beginObject()
        w.member("success", group.tokens.count - failed.count)
        w.member("failure", failed.count)
        if !failed.isEmpty { w.array("failed_registration_ids", strings: failed) }
        w.endObject()
        return .json(200, w)
    }
}

/// Why one recipient of a legacy send got an error, and whether chaos or a device's script
/// injected it (then it is logged with reason `chaos`).
struct RecipientFailure: Error {
    let error: LegacyError
    var injected = false

    init(_ error: LegacyError, injected: Bool = false) {
        self.error = error
        self.injected = injected
    }

    var reason: String { injected ? Chaos.reason : error.reason }
}
