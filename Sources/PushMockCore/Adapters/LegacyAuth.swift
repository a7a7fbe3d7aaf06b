/// `Authorization: key=<server key>` for `/fcm/send`, `/fcm/notification` and the IID API.
extension Gateway {
    /// The project whose server key the request carries; with `--accept-any-key`, the key's
    /// project if it names one, else the configured project.
    func legacyProject(_ request: Request) -> Project? {
        if let header = request.header("authorization"),
           let p = projectByAuthorization.value(for: header, { Self.serverKey(header).flatMap { projectsByKey[$0] } }) {
            return p
        }
        return configuration.acceptAnyKey ? projects[configuration.project] : nil
    }

    /// The Instance ID API also takes an OAuth bearer token with `access_token_auth: true`
    /// (what firebase-admin's legacy topic calls send).
    func iidProject(_ request: Request) -> Project? {
        if let p = legacyProject(request) { return p }
        guard request.header("access_token_auth") == "true",
              let bearer = request.header("authorization").flatMap({ Self.bearerToken($0) }) else { return nil }
        if configuration.acceptAnyToken { return projects[configuration.project] }
        guard let token = accessTokens[bearer], token.expires > clock.now() else { return nil }
        return projects[token.projectID]
    }

    /// The key of `key=<server key>`, the scheme matched case-insensitively.
    static func serverKey(_ header: String) -> String? {
        let u = header.utf8
        guard u.count > 4 else { return nil }
        var it = u.makeIterator()
        for expected in "key=".utf8 {
            guard let c = it.next(), (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) == expected else { return nil }
        }
        let key = String(Substring(u.dropFirst(4)))
        return key.utf8.first == 0x20 || key.utf8.last == 0x20 ? key.trimming(" \t") : key
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
    /// The string without leading and trailing characters from `set`.
    func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
