/// HTTP v1 topic management, as firebase-admin 7 calls it (clients.md):
/// `POST /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name=t` and
/// `DELETE .../topicSubscriptions/{t}?allow_missing=true`. Errors in Google's shape.
/// Loop thread only.
struct TopicSubscriptionsAPI {
    let credentials: Credentials
    let chaos: Chaos
    let clock: Clock

    func subscribe(_ request: Request, _ params: PathParameters) -> Reply {
        withChaos(request, params) { addSubscription(request, params) }
    }

    func unsubscribe(_ request: Request, _ params: PathParameters) -> Reply {
        withChaos(request, params) { removeSubscription(request, params) }
    }

    /// Chaos for an authenticated request; anything else goes on to its error.
    private func withChaos(_ request: Request, _ params: PathParameters, _ body: () -> Reply) -> Reply {
        guard credentials.bearerFailure(request, projectID: params[.project] ?? "") == nil,
            let project = credentials.googleAPIProject(params[.project] ?? "")
        else { return body() }
        return chaos.run(.topics, project, failure: Self.render, body)
    }

    /// An injected failure as Google's REST front end answers it.
    private static func render(_ failure: ChaosFailure) -> (Response, EventKind) {
        let message =
            switch failure.code {
            case "INTERNAL": "Internal error encountered."
            case "UNAVAILABLE": "The service is currently unavailable."
            default: "Topic subscription rate exceeded."
            }
        return (failure.topicAnswer(.googleError(failure.topicStatus, failure.code, message)), failure.topicEvent)
    }

    private func addSubscription(_ request: Request, _ params: PathParameters) -> Reply {
        Control.run { () throws(ControlError) -> Reply in
            let (project, device) = try registration(request, params)
            guard let topic = request.queryValue("topic_name").map(Topic.bareName), Topic.isValidName(topic) else {
                throw Control.invalid("Invalid topic name. It must match [a-zA-Z0-9-_.~%]+.")
            }
            if device.topics[topic] != nil {
                throw ControlError(response: .googleError(409, "ALREADY_EXISTS", "Requested entity already exists"))
            }
            guard project.topics.subscribe(device, to: topic, at: clock.now()) else {
                throw Control.failedPrecondition(
                    "The app instance is subscribed to the maximum of \(Topic.maxPerInstance) topics.")
            }
            return .response(.json(200, Self.subscriptionJSON(project, params[.token] ?? "", topic)))
        }
    }

    private func removeSubscription(_ request: Request, _ params: PathParameters) -> Reply {
        Control.run { () throws(ControlError) -> Reply in
            let (project, device) = try registration(request, params)
            let topic = Topic.bareName(params[.topic] ?? "")
            guard Topic.isValidName(topic) else { throw Control.invalid("Invalid topic name. It must match [a-zA-Z0-9-_.~%]+.") }
            // A query parameter is a request field too, read by the same mapping (§J.1).
            let allowMissing = request.queryValue("allow_missing")
            if let allowMissing, allowMissing != "true", allowMissing != "false" {
                let why = "Invalid value at 'allow_missing' (TYPE_BOOL), \"\(allowMissing)\""
                throw ControlError(
                    response: .googleError(
                        400, "INVALID_ARGUMENT", why,
                        details: [V1Error.badRequest([ProtoViolation(field: "allow_missing", description: why)])]))
            }
            if device.topics[topic] == nil, allowMissing != "true" {
                throw Control.notFound("Requested entity was not found.")
            }
            project.topics.unsubscribe(device, from: topic)
            return .response(.json(200, "{}"))
        }
    }

    /// Authenticates the bearer and resolves `{project}` and `{token}` to a live device.
    private func registration(_ request: Request, _ params: PathParameters) throws(ControlError) -> (Project, Device) {
        let projectID = params[.project] ?? ""
        if let failure = credentials.bearerFailure(request, projectID: projectID) { throw ControlError(response: failure) }
        guard let project = credentials.googleAPIProject(projectID) else {
            throw Control.notFound("Requested entity was not found.")
        }
        let token = params[.token] ?? ""
        guard let device = project.devices.withToken(token) else {
            if Identifiers.looksLikeRegistrationToken(token) {
                throw Control.notFound("Requested entity was not found.")
            }
            throw Control.invalid("The registration token is not a valid FCM registration token")
        }
        return (project, device)
    }

    static func subscriptionJSON(_ project: Project, _ token: String, _ topic: String) -> String {
        "{\"name\":\(JSONWriter.quoted("projects/\(project.id)/registrations/\(token)/topicSubscriptions/\(topic)"))}"
    }
}

extension ChaosFailure {
    /// Topic management's injected failures, on the Instance ID API and HTTP v1 alike: the
    /// status for the code, the event it is logged as, and `Retry-After` on all but a 500.
    var topicStatus: Int { code == "INTERNAL" ? 500 : code == "RESOURCE_EXHAUSTED" ? 429 : 503 }
    var topicEvent: EventKind { code == "RESOURCE_EXHAUSTED" ? .quotaExceeded : .internalError }

    func topicAnswer(_ response: Response) -> Response {
        var r = response
        if topicStatus != 500 { r.headers.append(("Retry-After", String(retryAfter))) }
        return r
    }
}
