/// The APNs provider API, `POST /3/device/{token}` over HTTP/2 (docs/reference/apns.md §E):
/// checks the push as APNs does, then hands it to the same device model, inbox and log as an
/// FCM push. Authentication is `APNsProvider+Auth.swift`. Loop thread only.
struct APNsProvider {
    /// VoIP payloads may be larger than the others.
    static let maxPayload = 4096
    static let maxVoIPPayload = 5120

    let directory: ProjectDirectory
    let credentials: Credentials
    let parts: SendParts
    /// `--apns-environment`, for hosts that are not Apple's.
    let configuration: Configuration
    /// Raised while the server stops: pushes answer 503 `Shutdown`.
    let shutdown: ShutdownFlag

    func push(_ request: Request, _ params: PathParameters) -> Reply {
        let environment = apnsEnvironment(of: request)
        let apnsID = apnsID(for: request)
        guard request.connection?.isHTTP2 == true else {
            logRefusal(request, token: params[.token] ?? "", apnsID: apnsID, reason: "http_version_not_supported")
            return .response(.text(505, "APNs accepts HTTP/2 only (RFC 9113); use the TLS port with ALPN h2."))
        }
        var roll = Chaos.Roll()
        do throws(APNsFailure) {
            let (device, project, headers) = try check(
                request, token: params[.token] ?? "", environment: environment, roll: &roll)
            if let mode = roll.drop {
                let message = accept(request, headers, apnsID: apnsID, project: project, refused: true)
                parts.chaos.logChaos(.internalError, project, device: device, message: message)
                return .drop(mode)
            }
            let message = accept(request, headers, apnsID: apnsID, project: project)
            parts.delivery.deliver(message, messageID: apnsID, to: device, project: project)
            let response =
                environment == .sandbox
                ? Response(status: 200, headers: [("apns-id", apnsID), ("apns-unique-id", parts.ids.uuid())])
                : Response(status: 200, headers: [("apns-id", apnsID)])
            return Chaos.delay(.response(response), roll.delaySeconds)
        } catch {
            logRefusal(
                request, token: params[.token] ?? "", apnsID: apnsID, device: error.device, kind: error.reason.event,
                reason: error.injected ? Chaos.reason : error.reason.rawValue)
            return Chaos.delay(.response(Self.error(error, apnsID: apnsID)), roll.delaySeconds)
        }
    }

    /// The checks of docs/reference/apns.md §E.4 in Pushy's order; returns the device, the sender's project and
    /// the headers. Once the sender is authenticated, chaos rolls for the push (`roll`); a
    /// dropped push returns at once.
    private func check(
        _ request: Request, token: String, environment: APNsEnvironment,
        roll: inout Chaos.Roll
    ) throws(APNsFailure) -> (Device, Project, APNsHeaders) {
        if shutdown.isRaised { throw APNsFailure(.shutdown) }
        if parts.storeFailing() { throw APNsFailure(.serviceUnavailable) }
        let headers = try readHeaders(request)
        guard let key = APNsToken(token) else {
            throw APNsFailure(token.isEmpty ? .missingDeviceToken : .badDeviceToken)
        }
        guard let device = directory.device(at: .apns(key)) else {
            if let retired = directory.retirement(of: .apns(key)) {
                throw APNsFailure(.unregistered, timestamp: retired.time, device: retired.device)
            }
            throw APNsFailure(.badDeviceToken)
        }
        guard device.apnsEnvironment == environment else { throw APNsFailure(.badDeviceToken, device: device) }
        let now = parts.clock.now()
        // Every 410 says when the token stopped being valid: here, when its idle time ran out.
        if device.idle(at: now) > DeviceModel.tokenExpiresAfter {
            let expired = now - device.idle(at: now) + DeviceModel.tokenExpiresAfter
            throw APNsFailure(.expiredToken, timestamp: expired, device: device)
        }
        guard device.app == headers.bundleID else { throw APNsFailure(.deviceTokenNotForTopic, device: device) }
        let project: Project
        do throws(APNsFailure) { project = try authenticate(request, headers, environment: environment) } catch {
            throw APNsFailure(error.reason, device: device)
        }
        // An app belongs to its project's team: another team's credential may not push to it (§E.3).
        guard project.id == device.projectID else { throw APNsFailure(.topicDisallowed, device: device) }
        roll = parts.chaos.roll(.apns, project)
        if roll.drop != nil { return (device, project, headers) }
        guard !request.body.isEmpty else { throw APNsFailure(.payloadEmpty, device: device) }
        let limit = headers.pushType == "voip" ? Self.maxVoIPPayload : Self.maxPayload
        guard request.body.count <= limit else { throw APNsFailure(.payloadTooLarge, device: device) }
        if let code = parts.chaos.scriptedCode(device) ?? roll.failure?.code, let reason = APNsReason(rawValue: code) {
            throw APNsFailure(
                reason, timestamp: reason == .unregistered ? parts.clock.now() : nil, device: device, injected: true)
        }
        if parts.quotas.takeDeviceRate(device, anyPlatform: true) != nil { throw APNsFailure(.tooManyRequests, device: device) }
        return (device, project, headers)
    }

    /// The push's `apns-*` headers, read once per distinct header list on a connection.
    private func readHeaders(_ request: Request) throws(APNsFailure) -> APNsHeaders {
        guard let context = request.connection else { return try APNsHeaders(request, certificateTopic: nil) }
        let state = context.apns
        if let last = state.headers, last.fields.count == request.headers.count,
            last.fields.withUnsafeBufferPointer({ $0.baseAddress }) == request.headers.withUnsafeBufferPointer({ $0.baseAddress })
        {
            return last.value
        }
        let headers = try APNsHeaders(request, certificateTopic: context.clientCertificate?.userID)
        state.headers = (request.headers, headers)
        return headers
    }

    /// Records the push with the options the device model needs, read from the headers
    /// (when they could be read: a refused push may have bad ones) and the `aps` dictionary.
    private func accept(
        _ request: Request, _ headers: APNsHeaders?, apnsID: String, project: Project, refused: Bool = false
    ) -> Message {
        // Only the `aps` members' names and numbers are needed: nothing else is built.
        let aps = JSONParser.members(of: "aps", in: request.body) ?? []
        func isOne(_ key: String) -> Bool { aps.last { $0.key == key }?.scalar?.numberValue?.int == 1 }
        let hasAlert = aps.contains { $0.key == "alert" || $0.key == "sound" || $0.key == "badge" }
        let pushType = headers?.pushType ?? (hasAlert ? "alert" : "background")
        let content = PushContent(
            priority: (headers?.priority ?? 10) == 10 ? .high : .normal,
            contentAvailable: isOne("content-available"), mutableContent: isOne("mutable-content"),
            collapseKey: headers?.collapseID, isNotification: pushType == "alert" && hasAlert,
            apnsExpiration: headers?.expiration)
        let message = parts.delivery.accept(
            api: "apns", format: Self.format, options: content.options, target: .token, request: request,
            project: project, id: apnsID, bulkID: nil, refused: refused)
        if let headers { message.details = APNsPushDetails(headers: headers, pushType: pushType) }
        return message
    }

    /// Logs a refused push (docs/delivery-log.md), with the push itself so `GET .../messages`
    /// lists it: for the device its token names or named (an app deleted or reinstalled),
    /// else in the sender's project with the token as sent. Only while the log cannot be
    /// written is nothing logged.
    func logRefusal(
        _ request: Request, token: String, apnsID: String, device: Device? = nil,
        kind: EventKind = .invalidParameters, reason: String
    ) {
        if parts.storeFailing() { return }
        let key = APNsToken(token)
        let device =
            device ?? key.flatMap { directory.device(at: .apns($0)) ?? directory.retirement(of: .apns($0))?.device }
        let project = device.flatMap { directory[$0.projectID] } ?? senderProject(request) ?? directory.defaultProject
        let message = accept(request, nil, apnsID: apnsID, project: project, refused: true)
        parts.delivery.logRejection(
            kind, reason: reason, project: project, message: message, messageID: apnsID, device: device,
            token: token.isEmpty ? nil : token)
    }

    /// A push reaches the device as sent; the payload's own keys beside `aps` are what the app
    /// reads as data.
    static let format = MessageFormat(appleDefaultExpiry: true, direct: true) { body in
        let payload = (try? JSONParser.parse(body))?.objectValue ?? JSONObject()
        return PushContent(data: JSONObject(payload.entries.filter { $0.key != "aps" }))
    }

    /// The `apns-id` an answer carries: the request's when it is a UUID, else a new one.
    func apnsID(for request: Request) -> String {
        request.header("apns-id").flatMap { APNsHeaders.isUUID($0) ? $0 : nil } ?? parts.ids.uuid()
    }

    /// Apple's APNs host names (docs/reference/apns.md §E.1), any case.
    static func isAPNsHost(_ name: String) -> Bool {
        ["api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com"].contains(name.lowercased())
    }

    /// The environment the client addressed: Apple's host names decide; any other host
    /// (localhost, an IP) gets `--apns-environment`. Compared on bytes, without case and port.
    func apnsEnvironment(of request: Request) -> APNsEnvironment {
        guard let host = request.header("host") else { return configuration.apnsEnvironment }
        return host.withBytes { bytes in
            var name = bytes[...]
            if name.last != UInt8(ascii: "]"), let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = name[..<colon] }
            func named(_ lower: StaticString) -> Bool { Request.equalsLowercased(UnsafeBufferPointer(rebasing: name), lower) }
            if named("api.push.apple.com") { return .production }
            if named("api.sandbox.push.apple.com") || named("api.development.push.apple.com") { return .sandbox }
            return configuration.apnsEnvironment
        }
    }

    /// An APNs error: `{"reason"}` (+ `timestamp` in ms for 410), with `apns-id`.
    static func error(_ failure: APNsFailure, apnsID: String) -> Response {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.member("reason", failure.reason.rawValue)
        if let t = failure.timestamp { w.member("timestamp", Int(t / 1000)) }
        w.endObject()
        return Response(
            status: failure.reason.status, headers: [("apns-id", apnsID), ("content-type", "application/json")],
            body: w.bytes)
    }

}

/// The provider API as a module: one route, answered in APNs' own style.
extension APNsProvider: GatewayModule {
    func addRoutes(to routes: inout Routes) {
        routes.group("/3", APNsStyle(provider: self)) { r in r.add("POST", "/device/{token}", push) }
    }

    /// APNs offers one stream until a connection's first valid provider token. pushmock serves
    /// every API on one port, so it applies that start where the client asked for APNs by name:
    /// TLS with an APNs host in SNI (as an official SDK pointed at pushmock by DNS sends),
    /// without a client certificate (which authenticates the connection from the start). Other
    /// connections (h2c, `localhost`, an IP address, Google's hosts) start with every stream,
    /// so load tools that open many streams before reading SETTINGS are not refused.
    func limitsConnectionStart(_ context: ConnectionContext) -> Bool {
        context.isTLS && context.serverName.map(Self.isAPNsHost) == true && context.clientCertificate == nil
    }

    /// A path no route serves, on a connection to an APNs host, is APNs' `BadPath`.
    func hostStyle(serverName: String) -> (any AnswerStyle)? {
        Self.isAPNsHost(serverName) ? APNsStyle(provider: self) : nil
    }
}

/// What APNs answers that no route writes: `BadPath`, `MethodNotAllowed`, `MissingDeviceToken`,
/// `PayloadTooLarge`, `ServiceUnavailable`, each a JSON `reason` with the `apns-id`.
final class APNsStyle: AnswerStyle {
    private let provider: APNsProvider

    init(provider: APNsProvider) { self.provider = provider }

    var keepsConnectionStart: Bool { true }

    func notFound(_ request: Request) -> Response {
        let missing = request.path == "/3/device" || request.path == "/3/device/"
        return failure(missing ? .missingDeviceToken : .badPath, request)
    }

    func methodNotAllowed(_ request: Request) -> Response { failure(.methodNotAllowed, request) }

    func framingError(_ error: FramingError, _ request: Request) -> Response {
        // APNs reads HTTP/2 only, where nghttp2 refuses a malformed stream itself.
        error == .tooLarge ? failure(.payloadTooLarge, request) : GoogleFrontEnd.framingError(400)
    }

    /// A push that was accepted and logged, but could not be made durable: not a refusal to log.
    func storeUnavailable(_ request: Request) -> Response { failure(.serviceUnavailable, request, logged: false) }

    /// The answer; a push (a POST) refused so is logged like any other.
    private func failure(_ reason: APNsReason, _ request: Request, logged: Bool = true) -> Response {
        let apnsID = provider.apnsID(for: request)
        if logged, request.method == "POST" {
            let token = request.path.hasPrefix("/3/device/") ? String(request.path.dropFirst("/3/device/".count)) : ""
            provider.logRefusal(request, token: token, apnsID: apnsID, kind: reason.event, reason: reason.rawValue)
        }
        return APNsProvider.error(APNsFailure(reason), apnsID: apnsID)
    }
}
