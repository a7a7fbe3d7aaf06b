/// Legacy device-group management, `POST /fcm/notification`
/// (docs/reference/fcm-legacy.md §A.9): create, add and remove by `notification_key_name`;
/// retrieval by GET. Loop thread only.
struct DeviceGroupsAPI {
    let auth: LegacyAuth
    let random: RandomSource

    private static func error(_ status: Int, _ text: String) -> Reply {
        .response(.json(status, "{\"error\":\(JSONWriter.quoted(text))}"))
    }

    /// The sender: a server key's project, or an OAuth token's, which the `project_id` header
    /// (the sender id or the project id, §A.9) must name when it is given. With a server key
    /// the key decides, whatever `project_id` says (clients send their real sender id).
    private func project(_ request: Request) -> Project? {
        if let project = auth.project(request) { return project }
        guard let project = auth.projectAcceptingBearer(request) else { return nil }
        if let named = request.header("project_id"), named != project.id, named != String(project.number) { return nil }
        return project
    }

    func manage(_ request: Request) -> Reply {
        guard let project = project(request) else { return auth.unauthorized(request) }
        guard let obj = (try? JSONParser.parse(request.body))?.objectValue else {
            return Self.error(400, "InvalidJson")
        }
        guard let operation = obj["operation"]?.stringValue, ["create", "add", "remove"].contains(operation) else {
            return Self.error(400, "invalid operation")
        }
        guard let name = obj["notification_key_name"]?.stringValue, !name.isEmpty else {
            return Self.error(400, "notification_key_name not found")
        }
        guard let list = obj["registration_ids"]?.arrayValue, !list.isEmpty else {
            return Self.error(400, "no valid registration ids")
        }
        let tokens = list.compactMap(\.stringValue)
        guard tokens.count == list.count, tokens.allSatisfy({ project.devices.withToken($0) != nil }) else {
            return Self.error(400, "no valid registration ids")
        }
        if operation == "create" {
            guard project.groupsByName[name] == nil else { return Self.error(400, "notification_key already exists") }
            guard tokens.count <= DeviceGroup.maxMembers else { return Self.error(400, "too many registration ids") }
            let group = DeviceGroup(name: name, key: "APA91b" + random.base64URL(134), tokens: [])
            group.tokens = Array(orderedUnique(tokens))
            project.addGroup(group)
            return .response(.json(200, "{\"notification_key\":\(JSONWriter.quoted(group.key))}"))
        }
        guard let key = obj["notification_key"]?.stringValue, let group = project.groupsByKey[key], group.name == name else {
            return Self.error(400, "notification_key not found")
        }
        if operation == "add" {
            let merged = orderedUnique(group.tokens + tokens)
            guard merged.count <= DeviceGroup.maxMembers else { return Self.error(400, "too many registration ids") }
            group.tokens = merged
        } else {
            group.tokens.removeAll { tokens.contains($0) }
            if group.tokens.isEmpty { project.removeGroup(group) }
        }
        return .response(.json(200, "{\"notification_key\":\(JSONWriter.quoted(group.key))}"))
    }

    /// `GET /fcm/notification?notification_key_name=…`.
    func lookup(_ request: Request) -> Reply {
        guard let project = project(request) else { return auth.unauthorized(request) }
        guard let name = request.queryValue("notification_key_name"), let group = project.groupsByName[name] else {
            return Self.error(400, "notification_key not found")
        }
        return .response(.json(200, "{\"notification_key\":\(JSONWriter.quoted(group.key))}"))
    }
}
