/// Failure injection ("chaos"): per project and surface, a chance of the real service's
/// errors, of a dropped connection, and added latency, rolled on a generator `--chaos-seed`
/// seeds so a run repeats; plus the per-device scripts of `:scriptErrors`. Chaos acts on
/// authenticated requests (their project is known) before they are processed, so a failed
/// request is never accepted. Every injected failure is logged with reason `chaos`.
extension Gateway {
    /// What one roll decided for one request.
    struct ChaosRoll {
        var drop: DropMode?
        var fails = false
        var delaySeconds = 0.0
    }

    static let chaosReason = "chaos"

    func rollChaos(_ surface: ChaosSurface, _ project: Project) -> ChaosRoll {
        rollChaos(surface, project.chaos[surface])
    }

    private func rollChaos(_ surface: ChaosSurface, _ settings: SurfaceChaos?) -> ChaosRoll {
        var roll = ChaosRoll()
        guard let s = settings else { return roll }
        if s.dropRate > 0, chance(s.dropRate) { roll.drop = s.drop }
        // Legacy per-recipient errors are rolled per recipient (`injectedFailure`).
        if s.errorRate > 0, !(surface == .legacy && s.isPerRecipient), chance(s.errorRate) { roll.fails = true }
        roll.delaySeconds = (s.latencyMs + (s.jitterMs > 0 ? unitRandom() * s.jitterMs : 0)) / 1000
        return roll
    }

    /// Runs `body` for a request on `surface` unless chaos drops or fails it first; whatever
    /// the answer, it waits for the rolled latency.
    func withChaos(_ surface: ChaosSurface, _ project: Project, _ request: Request, _ body: () -> Reply) -> Reply {
        guard let settings = project.chaos[surface] else { return body() }
        let roll = rollChaos(surface, settings)
        if let mode = roll.drop {
            logChaos(.internalError, project)
            return .drop(mode)
        }
        let reply = roll.fails ? .response(chaosFailure(surface, settings, project, request)) : body()
        return Self.delay(reply, roll.delaySeconds)
    }

    static func delay(_ reply: Reply, _ seconds: Double) -> Reply {
        guard seconds > 0, case .response(let r) = reply else { return reply }
        return .delayed(r, seconds: seconds)
    }

    /// A failure for one recipient of a legacy or v1 send: the device's script first, then
    /// the legacy surface's per-recipient chance.
    func injectedFailure(_ device: Device, _ project: Project, surface: ChaosSurface) -> LegacyError? {
        if !device.scriptedErrors.isEmpty { return device.scriptedErrors.removeFirst() }
        guard surface == .legacy, let s = project.chaos[.legacy], s.isPerRecipient, s.errorRate > 0,
              chance(s.errorRate) else { return nil }
        return LegacyError(rawValue: s.error)
    }

    /// The APNs reason for an injected failure of this project, if the roll says so.
    func injectedAPNsFailure(_ device: Device, _ roll: ChaosRoll, _ project: Project) -> APNsFailure? {
        let reason: APNsReason
        if !device.scriptedAPNsErrors.isEmpty {
            reason = device.scriptedAPNsErrors.removeFirst()
        } else {
            guard roll.fails, let name = project.chaos[.apns]?.error, let rolled = APNsReason(rawValue: name) else { return nil }
            reason = rolled
        }
        return APNsFailure(reason, timestamp: reason == .unregistered ? clock.now() : nil, device: device, injected: true)
    }

    /// A whole request's injected error in the surface's own shape, logged.
    private func chaosFailure(_ surface: ChaosSurface, _ s: SurfaceChaos, _ project: Project, _ request: Request) -> Response {
        switch (surface, s.error) {
        case (.legacy, "500"):
            logChaos(.internalError, project)
            return .text(500, "Internal Server Error")
        case (.legacy, _):
            logChaos(.internalError, project)
            return Response(status: 503, headers: [("Retry-After", String(s.retryAfter)), ("Content-Type", "text/plain; charset=UTF-8")],
                            body: Array("Unavailable".utf8))
        case (.v1, "QUOTA_EXCEEDED"):
            logChaos(.quotaExceeded, project)
            return Self.quotaExceeded("Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com'.",
                                      retryAfter: Int64(s.retryAfter) * 1_000_000).response
        case (.v1, "INTERNAL"):
            logChaos(.internalError, project)
            return Self.v1Error(.internalServerError).response
        case (.v1, _):
            logChaos(.internalError, project)
            var e = Self.v1Error(.unavailable)
            e.retryAfter = s.retryAfter
            return e.response
        case (.topics, let code):
            logChaos(code == "RESOURCE_EXHAUSTED" ? .quotaExceeded : .internalError, project)
            let status = code == "INTERNAL" ? 500 : code == "RESOURCE_EXHAUSTED" ? 429 : 503
            var r: Response = request.path.hasPrefix("/iid/")
                ? .json(status, "{\"error\":\(JSONWriter.quoted(code))}")
                : .googleError(status, code, code == "INTERNAL" ? "Internal error encountered."
                    : code == "UNAVAILABLE" ? "The service is currently unavailable." : "Topic subscription rate exceeded.")
            if status != 500 { r.headers.append(("Retry-After", String(s.retryAfter))) }
            return r
        case (.apns, _):
            // A push's failure carries its device and apns-id: `apnsSend` rolls and answers it
            // (`injectedAPNsFailure`) after authenticating the sender.
            preconditionFailure("APNs chaos is answered by apnsSend, not withChaos")
        }
    }

    func logChaos(_ kind: EventKind, _ project: Project, device: Device? = nil, messageID: String? = nil) {
        log.append(kind: kind, time: clock.now(), projectID: project.id, projectNumber: project.number,
                   messageID: messageID, device: device, reason: Self.chaosReason)
    }

    /// True with probability `p`, from the chaos generator.
    private func chance(_ p: Double) -> Bool { p >= 1 || unitRandom() < p }

    private func unitRandom() -> Double { Double(chaosRandom.next() >> 11) / Double(1 << 53) }

    // MARK: The control API

    /// `GET /emulator/v1/projects/{p}/chaos`: every surface's settings.
    func getChaos(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        .response(.json(200, chaosJSON(try controlProject(params))))
    }

    /// `PUT .../chaos`: replaces the project's settings (surfaces left out get none); a
    /// `seed` restarts the chaos generator from it.
    func putChaos(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        var body = try Control.body(request, allowed: Set(ChaosSurface.allCases.map(\.rawValue) + ["seed"]))
        if let seed = body["seed"] {
            guard let n = seed.numberValue?.text, let value = UInt64(n) else {
                throw Control.invalid("Field 'seed' must be a whole number from 0 to 18446744073709551615.")
            }
            chaosRandom = RandomSource(seed: value)
            body.entries.removeAll { $0.key == "seed" }
        }
        do {
            project.chaos = try ChaosSettings.parse(json: body)
        } catch {
            throw Control.invalid(error.message)
        }
        return .response(.json(200, chaosJSON(project)))
    }

    /// `DELETE .../chaos`: no failure injection for the project.
    func deleteChaos(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        project.chaos = ChaosSettings()
        return .response(.json(200, chaosJSON(project)))
    }

    private func chaosJSON(_ project: Project) -> JSONWriter {
        var w = JSONWriter()
        project.chaos.write(&w)
        return w
    }
}

extension SurfaceChaos {
    /// Legacy `Unavailable` and `InternalServerError` are per-recipient results (HTTP 200).
    var isPerRecipient: Bool { error == "Unavailable" || error == "InternalServerError" }
}
