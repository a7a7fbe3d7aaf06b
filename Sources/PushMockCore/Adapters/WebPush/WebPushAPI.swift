/// The push service's endpoint (RFC 8030 §5): an app server POSTs an encrypted message to a
/// subscription's endpoint, and the push service checks it as FCM, autopush or Apple does
/// (docs/reference/web-push.md §1-3), answers 201, and hands it to the browser, which
/// decrypts it (RFC 8291) and wakes the app's service worker. pushmock plays the browser for
/// Web devices, so the decrypted data reaches the same device model, inbox and log as an FCM
/// send. Loop thread only.
struct WebPushAPI {
    let directory: ProjectDirectory
    let parts: SendParts
    /// Nil without Web Push's cryptography (Core's tests): every push is a 500.
    let vapid: VAPID?
    let encoding: ContentEncoding?

    /// Answers a push; `carrying`: the FCM send this push carries (`WebPushRelay`).
    func push(_ service: WebPushService, _ request: Request, _ params: PathParameters, carrying: Message? = nil) -> Reply {
        let token = params[.token] ?? ""
        var device: Device?
        var project: Project?
        do throws(WebPushRefusal) {
            let (d, p, sub) = try subscription(token, service, request)
            (device, project) = (d, p)
            if parts.storeFailing() { throw .unavailable }
            let vapidSubject = try authenticate(request, sub, service)
            let headers = try WebPushHeaders(request, service)
            let roll = parts.chaos.roll(.webpush, p)
            if let mode = roll.drop {
                parts.chaos.logChaos(.internalError, p, device: d)
                return .drop(mode)
            }
            if let failure = roll.failure { throw injected(failure.code) }
            let messageID = service == .fcm ? parts.ids.recipient() : parts.ids.uuid().lowercased()
            let message = accept(request, headers, vapidSubject: vapidSubject, service, sub, project: p, id: messageID)
            message.forwarding = carrying
            parts.delivery.deliver(message, messageID: messageID, to: d, project: p)
            return Chaos.delay(
                .response(service.created(origin: sub.origin, messageID: messageID, ttl: headers.ttl)), roll.delaySeconds)
        } catch {
            // A subscription that has ended is logged for the device it belonged to.
            if device == nil, let retired = directory.retirement(of: DeviceAddress(.webPushEndpoint, token)) {
                (device, project) = (retired.device, directory[retired.device.projectID])
            }
            if let device, let project, let kind = error.event {
                parts.log.append(
                    kind: kind, time: parts.clock.now(), projectID: project.id, projectNumber: project.number, device: device,
                    reason: error.wording.message)
            }
            return .response(service.answer(error))
        }
    }

    /// The subscription an endpoint names, on the service and path it was handed out with.
    private func subscription(_ token: String, _ service: WebPushService, _ request: Request) throws(WebPushRefusal)
        -> (Device, Project, PushSubscription)
    {
        guard vapid != nil, encoding != nil else { throw .internalError }
        let address = DeviceAddress(.webPushEndpoint, token)
        guard let device = directory.device(at: address), let sub = device.subscription(token: token),
            sub.browser == service.browser, Self.path(request.path, fits: sub), let project = directory[device.projectID]
        else {
            if let retired = directory.retirement(of: address) { throw .gone(since: retired.time) }
            throw .invalidToken
        }
        // FCM answers a subscription idle for 270 days as unknown (docs/reference/web-push.md §2.3).
        let now = parts.clock.now()
        if device.idle(at: now) > DeviceModel.tokenExpiresAfter {
            throw service == .fcm ? .invalidToken : .gone(since: now - device.idle(at: now) + DeviceModel.tokenExpiresAfter)
        }
        return (device, project, sub)
    }

    /// Whether the endpoint was POSTed to at the path it was handed out with (autopush also
    /// serves `/wpush/{token}` as v1).
    private static func path(_ path: String, fits sub: PushSubscription) -> Bool {
        let prefix = path.dropLast(sub.token.utf8.count)
        if sub.builtByBrowser { return prefix == "/fcm/send/" || prefix == "/wp/" }
        if prefix == PushSubscription.pathPrefix(sub.browser, restricted: sub.applicationServerKey != nil) { return true }
        return sub.browser == .firefox && sub.applicationServerKey == nil && prefix == "/wpush/"
    }

    /// VAPID (RFC 8292): required for a restricted subscription, checked whenever given.
    /// Returns the sender's `sub` claim.
    private func authenticate(_ request: Request, _ sub: PushSubscription, _ service: WebPushService) throws(WebPushRefusal)
        -> String?
    {
        guard let vapid else { throw .internalError }
        let credentials: VAPID.Credentials?
        do throws(VAPID.Problem) { credentials = try VAPID.credentials(request) } catch { throw .vapid(error) }
        guard let credentials else {
            if sub.applicationServerKey != nil || service == .apple { throw .missingAuthorization }
            return nil
        }
        let now = Double(parts.clock.now()) / 1_000_000
        let claims: VAPID.Claims
        do throws(VAPID.Problem) {
            let origin = sub.builtByBrowser ? request.origin ?? sub.origin : sub.origin
            claims = try vapid.check(credentials, origin: origin, restrictedTo: sub.applicationServerKey, now: now)
        } catch { throw .vapid(error) }
        if service == .apple, !Self.appleTakes(claims.subject) { throw .badSubject }
        return claims.subject
    }

    /// Apple refuses a `sub` that is not a `mailto:` address or an `https:` URL, and
    /// `mailto:` addresses with spaces, brackets or a `localhost` domain (docs/reference/web-push.md §2.4).
    static func appleTakes(_ subject: String?) -> Bool {
        guard let s = subject else { return false }
        if s.hasPrefix("https://") { return s.utf8.count > 8 && !s.contains(" ") }
        guard s.hasPrefix("mailto:") else { return false }
        let address = s.dropFirst(7)
        guard let at = address.firstIndex(of: "@"), !address.contains(where: { " <>".contains($0) }) else { return false }
        let domain = address[address.index(after: at)...].lowercased()
        return !domain.isEmpty && domain != "localhost"
    }

    /// A chaos error code as the refusal each service words.
    private func injected(_ code: String) -> WebPushRefusal {
        switch code {
        case "429": .tooManyRequests
        case "500": .internalError
        case "410": .gone(since: parts.clock.now())
        default: .unavailable
        }
    }
}

extension WebPushRefusal {
    /// The event a refusal of a known or ended subscription is logged as (none for an
    /// endpoint no subscription ever had).
    var event: EventKind? {
        switch self {
        case .invalidToken: nil
        case .gone: .invalidRegistration
        case .missingTTL, .negativeTTL: .invalidTTL
        case .tooLarge: .payloadTooLarge
        case .missingAuthorization, .vapid, .badSubject: .authenticationError
        case .unavailable, .internalError: .internalError
        case .tooManyRequests: .quotaExceeded
        default: .invalidParameters
        }
    }
}
