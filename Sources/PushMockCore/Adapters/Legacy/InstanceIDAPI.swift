/// Server-side topic management as the Instance ID API offered it
/// (docs/reference/topics.md §C): `:batchAdd`, `:batchRemove`, single-token relations and
/// `iid/info`. Loop thread only.
struct InstanceIDAPI {
    static let maxTokens = 1000

    let auth: LegacyAuth
    let chaos: Chaos
    let clock: Clock

    private static func error(_ status: Int, _ code: String) -> Reply {
        .response(.json(status, "{\"error\":\(JSONWriter.quoted(code))}"))
    }

    /// An injected failure as the Instance ID server answers it: `{"error": code}`.
    private static func render(_ failure: ChaosFailure) -> (Response, EventKind) {
        (failure.topicAnswer(.json(failure.topicStatus, "{\"error\":\(JSONWriter.quoted(failure.code))}")), failure.topicEvent)
    }

    /// `POST /iid/v1:batchAdd` and `:batchRemove`: one result per token, `{}` on success.
    func batch(_ request: Request, add: Bool) -> Reply {
        guard let project = auth.projectAcceptingBearer(request) else { return auth.unauthorized(request) }
        return chaos.run(.topics, project, failure: Self.render) { batch(request, add: add, project) }
    }

    private func batch(_ request: Request, add: Bool, _ project: Project) -> Reply {
        guard let body = try? JSONParser.parse(request.body), let obj = body.objectValue else {
            return Self.error(400, "InvalidJson")
        }
        guard let to = obj["to"]?.stringValue else { return Self.error(400, "MissingTopic") }
        let topic = Topic.bareName(to)
        guard Topic.isValidName(topic) else { return Self.error(400, "InvalidTopicName") }
        guard let list = obj["registration_tokens"]?.arrayValue, !list.isEmpty else {
            return Self.error(400, "MissingIIDToken")
        }
        guard list.count <= Self.maxTokens else { return Self.error(400, "TooManyTokens") }
        var w = JSONWriter(capacity: 16 + list.count * 8)
        w.beginObject()
        w.key("results")
        w.beginArray()
        for item in list {
            w.beginObject()
            if let code = relate(item.stringValue ?? "", topic, add: add, project: project) { w.member("error", code) }
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return .response(.json(200, w))
    }

    /// `POST /iid/v1/{token}/rel/topics/{topic}`: subscribes one token.
    func relate(_ request: Request, _ params: PathParameters) -> Reply {
        guard let project = auth.projectAcceptingBearer(request) else { return auth.unauthorized(request) }
        return chaos.run(.topics, project, failure: Self.render) { relate(params, project) }
    }

    private func relate(_ params: PathParameters, _ project: Project) -> Reply {
        let topic = params[.topic] ?? ""
        guard Topic.isValidName(topic) else { return Self.error(400, "InvalidTopicName") }
        switch relate(params[.token] ?? "", topic, add: true, project: project) {
        case nil: return .response(.json(200, "{}"))
        case "NOT_FOUND"?: return Self.error(404, "NOT_FOUND")
        case let code?: return Self.error(400, code)
        }
    }

    /// Adds or removes one subscription; the per-token error code, or nil on success.
    private func relate(_ token: String, _ topic: String, add: Bool, project: Project) -> String? {
        guard let device = project.devices.withToken(token) else {
            if Identifiers.looksLikeRegistrationToken(token) { return "NOT_FOUND" }
            return "INVALID_ARGUMENT"
        }
        if add {
            return project.topics.subscribe(device, to: topic, at: clock.now()) ? nil : "TOO_MANY_TOPICS"
        }
        project.topics.unsubscribe(device, from: topic)
        return nil
    }

    /// `GET /iid/info/{token}?details=true`.
    func info(_ request: Request, _ params: PathParameters) -> Reply {
        guard let project = auth.projectAcceptingBearer(request) else { return auth.unauthorized(request) }
        let token = params[.token] ?? ""
        guard let device = project.devices.withToken(token) else {
            if Identifiers.looksLikeRegistrationToken(token) {
                return Self.error(404, "No information found about this instance id.")
            }
            return Self.error(400, "InvalidToken")
        }
        var w = JSONWriter()
        w.beginObject()
        w.member("application", device.app)
        w.member("authorizedEntity", String(project.number))
        w.member("applicationVersion", "1")
        w.member("platform", device.platform.instanceIDPlatform)
        if request.queryValue("details") == "true" {
            w.key("rel")
            w.beginObject()
            w.key("topics")
            w.beginObject()
            for (topic, added) in device.topics.sorted(by: { $0.key < $1.key }) {
                w.key(JSONKey(topic))
                w.beginObject()
                w.member("addDate", added.day)
                w.endObject()
            }
            w.endObject()
            w.endObject()
        }
        w.endObject()
        return .response(.json(200, w))
    }
}
