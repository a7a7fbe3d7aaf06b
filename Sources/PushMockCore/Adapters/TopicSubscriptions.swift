/// HTTP v1 topic management, as firebase-admin 7 calls it (clients.md):
/// `POST /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name=t` and
/// `DELETE .../topicSubscriptions/{t}?allow_missing=true`. Errors in Google's shape.
extension Gateway {
    func subscribeTopic(_ request: Request, _ params: [String: String]) -> Reply {
        withTopicChaos(request, params) { subscribe(request, params) }
    }

    func unsubscribeTopic(_ request: Request, _ params: [String: String]) -> Reply {
        withTopicChaos(request, params) { unsubscribe(request, params) }
    }

    /// Chaos for an authenticated request; anything else goes on to its error.
    private func withTopicChaos(_ request: Request, _ params: [String: String], _ body: () -> Reply) -> Reply {
        guard bearerFailure(request, projectID: params["project"]!) == nil,
              let project = googleAPIProject(params["project"]!) else { return body() }
        return withChaos(.topics, project, request, body)
    }

    private func subscribe(_ request: Request, _ params: [String: String]) -> Reply {
        Control.run { () throws(ControlError) -> Reply in
            let (project, device) = try registration(request, params)
            guard let topic = request.queryValue("topic_name").map(Topic.bareName), Topic.isValidName(topic) else {
                throw Control.invalid("Invalid topic name. It must match [a-zA-Z0-9-_.~%]+.")
            }
            if device.topics[topic] != nil {
                throw ControlError(response: .googleError(409, "ALREADY_EXISTS", "Requested entity already exists"))
            }
            guard project.subscribe(device, to: topic, at: clock.now()) else {
                throw Control.failedPrecondition("The app instance is subscribed to the maximum of \(Topic.maxPerInstance) topics.")
            }
            return .response(.json(200, Self.subscriptionJSON(project, params["token"]!, topic)))
        }
    }

    private func unsubscribe(_ request: Request, _ params: [String: String]) -> Reply {
        Control.run { () throws(ControlError) -> Reply in
            let (project, device) = try registration(request, params)
            let topic = Topic.bareName(params["topic"]!)
            guard Topic.isValidName(topic) else { throw Control.invalid("Invalid topic name. It must match [a-zA-Z0-9-_.~%]+.") }
            if device.topics[topic] == nil, request.queryValue("allow_missing") != "true" {
                throw Control.notFound("Requested entity was not found.")
            }
            project.unsubscribe(device, from: topic)
            return .response(.json(200, "{}"))
        }
    }

    /// Authenticates the bearer and resolves `{project}` and `{token}` to a live device.
    private func registration(_ request: Request, _ params: [String: String]) throws(ControlError) -> (Project, Device) {
        let projectID = params["project"]!
        if let failure = bearerFailure(request, projectID: projectID) { throw ControlError(response: failure) }
        guard let project = googleAPIProject(projectID) else {
            throw Control.notFound("Requested entity was not found.")
        }
        let token = params["token"]!
        guard let device = project.device(token: token) else {
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
