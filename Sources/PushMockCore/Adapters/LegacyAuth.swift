/// `Authorization: key=<server key>` for `/fcm/send`, `/fcm/notification` and the IID API.
extension Gateway {
    /// The project whose server key the request carries; with `--accept-any-key`, the key's
    /// project if it names one, else the configured project.
    func legacyProject(_ request: Request) -> Project? {
        let key = request.header("authorization").flatMap(Self.serverKey)
        if let key, let p = projectsByKey[key] { return p }
        return configuration.acceptAnyKey ? projects[configuration.project] : nil
    }

    static func serverKey(_ header: String) -> String? {
        guard header.count > 4, header.prefix(4).lowercased() == "key=" else { return nil }
        return String(header.dropFirst(4)).trimmingCharacters(in: " \t")
    }

    /// FCM's 401 page (protocol.md §A.6), logged as AUTHENTICATION_ERROR.
    func unauthorized(_ request: Request) -> Reply {
        let p = projects[configuration.project]!
        log.append(kind: .authenticationError, time: clock.now(), projectID: p.id, projectNumber: p.number,
                   reason: request.header("authorization") == nil ? "missing_authorization" : "invalid_key")
        return .response(.html(401, Self.unauthorizedPage))
    }

    static let unauthorizedPage = """
        <HTML>
        <HEAD>
        <TITLE>Unauthorized</TITLE>
        </HEAD>
        <BODY BGCOLOR="#FFFFFF" TEXT="#000000">
        <H1>Unauthorized</H1>
        <H2>Error 401</H2>
        </BODY>
        </HTML>

        """
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
