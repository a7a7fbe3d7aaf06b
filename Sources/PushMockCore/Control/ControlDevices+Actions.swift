/// What a user or the client SDK does on a device: enable auto-init, refresh the token,
/// reinstall the app, tap a notification.
extension ControlDevices {
    /// `POST .../devices/{id}:enableAutoInit`: `Messaging.messaging().isAutoInitEnabled =
    /// true` (seed 001): a device without a token gets one.
    func enableAutoInit(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        registration.enableAutoInit(d, project: project)
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// `POST .../devices/{id}:refreshToken`: the SDK got a new registration token for the
    /// same installation; the old one now answers as a stale token (NotRegistered).
    func refreshToken(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        try Control.mapped { () throws(RegistrationError) in try registration.refreshToken(d, project: project) }
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// `POST .../devices/{id}:reinstall`: the app was deleted and installed again: a new
    /// installation (FID), token and APNs token; subscriptions and anything stored are gone.
    func reinstall(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        registration.reinstall(d, project: project)
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// `POST .../devices/{id}:unsubscribe`: the page called `PushSubscription.unsubscribe()`:
    /// the endpoint answers 410 from now on, and the FCM token made from it is gone.
    func unsubscribe(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        try Control.mapped { () throws(RegistrationError) in try registration.unsubscribe(d, project: project) }
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// `POST .../devices/{id}:subscribe`, optionally with `{"application_server_key": "..."}`:
    /// the page called `pushManager.subscribe()` again: a new endpoint and keys.
    func subscribe(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        let obj = try Control.body(request, allowed: ["application_server_key"])
        var key: [UInt8]?
        if let v = obj["application_server_key"], v != .null {
            guard let s = v.stringValue, let bytes = Base64URL.decode(s) else {
                throw Control.invalid("Invalid value at 'application_server_key': not base64url.")
            }
            key = bytes
        }
        try Control.mapped { () throws(RegistrationError) in
            try registration.subscribe(d, applicationServerKey: key, project: project)
        }
        return .response(.json(200, DeviceFields.json(d)))
    }

    /// `POST .../devices/{id}:scriptErrors` with `{"errors": ["UNAVAILABLE", "UNAVAILABLE"]}`:
    /// the next sends to this device fail with these codes, in order, then succeed again, so
    /// a test can exercise its retries. Legacy and HTTP v1 spellings are both accepted;
    /// `"apns_errors": ["ServiceUnavailable"]` does the same for APNs provider API pushes.
    func scriptErrors(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let (_, d) = try directory.device(params)
        let obj = try Control.body(request, allowed: ["errors", "apns_errors"])
        var apns: [String] = []
        for item in obj["apns_errors"]?.arrayValue ?? [] {
            guard let name = item.stringValue, APNsReason(rawValue: name) != nil else {
                throw Control.invalid("Unknown APNs reason \(JSONWriter.quotedJSON(item)).")
            }
            apns.append(name)
        }
        if obj["apns_errors"] != nil {
            guard d.platform == .ios else { throw Control.invalid("'apns_errors' applies to iOS devices only.") }
            chaos.script(d, refusals: nil, codes: apns)
        }
        if obj["errors"] == nil, obj["apns_errors"] != nil { return .response(.json(200, "{\"scripted\":\(apns.count)}")) }
        guard let items = obj["errors"]?.arrayValue else {
            throw Control.invalid("Field 'errors' must be a list of error codes.")
        }
        var errors: [Refusal] = []
        for item in items {
            guard let name = item.stringValue, let e = Self.scriptedRefusal(name) else {
                throw Control.invalid(
                    "Unknown error code \(JSONWriter.quotedJSON(item)): use UNAVAILABLE, INTERNAL, QUOTA_EXCEEDED, UNREGISTERED, SENDER_ID_MISMATCH, INVALID_ARGUMENT or THIRD_PARTY_AUTH_ERROR (or their legacy names)."
                )
            }
            errors.append(e)
        }
        chaos.script(d, refusals: errors, codes: nil)
        return .response(.json(200, "{\"scripted\":\(errors.count)}"))
    }

    /// The refusal a script's code names, in HTTP v1 or legacy spelling.
    private static func scriptedRefusal(_ name: String) -> Refusal? {
        switch name {
        case "UNAVAILABLE", "Unavailable": .unavailable
        case "INTERNAL", "InternalServerError": .internalError
        case "QUOTA_EXCEEDED", "DeviceMessageRateExceeded": .rateLimited
        case "UNREGISTERED", "NotRegistered": .unregistered
        case "SENDER_ID_MISMATCH", "MismatchSenderId": .otherSender
        case "INVALID_ARGUMENT", "InvalidRegistration": .malformedAddress
        case "THIRD_PARTY_AUTH_ERROR", "InvalidApnsCredential": .missingCredential
        default: nil
        }
    }

    /// `POST .../devices/{id}/notifications/{message_id}:open`: the user taps a displayed or
    /// presented notification (`didReceive`); the app comes to the foreground. In a browser
    /// the FCM service worker opens or focuses the page only when the notification links to
    /// the app's own origin; otherwise the click just closes it.
    func openNotification(_ params: PathParameters) throws(ControlError) -> Reply {
        let (project, d) = try directory.device(params)
        let id = try Control.path(params, .messageID)
        guard let (index, entry) = d.entry(id) else {
            throw Control.notFound("Device \(d.id) has no notification \(id).")
        }
        guard entry.canOpen else {
            throw Control.failedPrecondition("Notification \(id) was not displayed or presented, so it cannot be opened.")
        }
        guard !entry.opened else { throw Control.failedPrecondition("Notification \(id) was already opened.") }
        d.markOpened(at: index)
        var opensApp = true
        var reason = entry.shown == .presented ? "foreground" : "background"
        if d.platform == .web {
            let link = WebRendering.render(message: entry.message, messageID: id, device: d).link
            opensApp = WebRendering.opensPage(link: link, origin: d.app)
            reason = link.map { (opensApp ? "link:" : "other_origin:") + $0 } ?? "no_link"
        }
        delivery.log.append(
            kind: .messageOpen, time: delivery.clock.now(), projectID: project.id, projectNumber: project.number,
            message: entry.message, messageID: id, device: d, reason: reason)
        if opensApp {
            var state = d.state
            state.appState = .foreground
            delivery.change(d, to: state, project: project)
        }
        return .response(.json(200, DeviceFields.json(d)))
    }
}
