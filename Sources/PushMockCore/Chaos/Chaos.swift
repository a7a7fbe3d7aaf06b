/// Failure injection ("chaos"): per project and surface, a chance of the real service's
/// errors, of a dropped connection, and added latency, rolled on a generator `--chaos-seed`
/// seeds so a run repeats; plus the per-device scripts of `:scriptErrors`. Chaos acts on
/// authenticated requests (their project is known) before they are processed, so a failed
/// request is never accepted. Every injected failure is logged with reason `chaos`.
/// Loop thread only.
final class Chaos {
    /// What one roll decided for one request.
    struct Roll {
        var drop: DropMode?
        var fails = false
        var delaySeconds = 0.0
    }

    static let reason = "chaos"

    private let log: EventLog
    private let clock: Clock
    /// Chaos rolls only, so `--chaos-seed` repeats a run's failures whatever else draws.
    private var random: RandomSource

    init(log: EventLog, clock: Clock, seed: UInt64?) {
        self.log = log
        self.clock = clock
        self.random = RandomSource(seed: seed)
    }

    /// Restarts the generator from `seed` (`PUT .../chaos` with a seed).
    func reseed(_ seed: UInt64) { random = RandomSource(seed: seed) }

    func roll(_ surface: ChaosSurface, _ project: Project) -> Roll {
        roll(surface, project.chaos[surface])
    }

    private func roll(_ surface: ChaosSurface, _ settings: SurfaceChaos?) -> Roll {
        var roll = Roll()
        guard let s = settings else { return roll }
        if s.dropRate > 0, chance(s.dropRate) { roll.drop = s.drop }
        // Legacy per-recipient errors are rolled per recipient (`injectedFailure`).
        if s.errorRate > 0, !(surface == .legacy && s.isPerRecipient), chance(s.errorRate) { roll.fails = true }
        roll.delaySeconds = (s.latencyMs + (s.jitterMs > 0 ? unitRandom() * s.jitterMs : 0)) / 1000
        return roll
    }

    /// Runs `body` for a request on `surface` unless chaos drops or fails it first; whatever
    /// the answer, it waits for the rolled latency. A failure takes the shape of `family`.
    func run(_ surface: ChaosSurface, _ project: Project, answering family: APIFamily, _ body: () -> Reply) -> Reply {
        guard let settings = project.chaos[surface] else { return body() }
        let roll = self.roll(surface, settings)
        if let mode = roll.drop {
            logChaos(.internalError, project)
            return .drop(mode)
        }
        let reply = roll.fails ? .response(failure(surface, settings, project, family)) : body()
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
            chance(s.errorRate)
        else { return nil }
        return LegacyError(rawValue: s.error)
    }

    /// The APNs reason for an injected failure of this project, if the roll says so.
    func injectedAPNsFailure(_ device: Device, _ roll: Roll, _ project: Project) -> APNsFailure? {
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
    private func failure(_ surface: ChaosSurface, _ s: SurfaceChaos, _ project: Project, _ family: APIFamily) -> Response {
        switch (surface, s.error) {
        case (.legacy, "500"):
            logChaos(.internalError, project)
            return .text(500, "Internal Server Error")
        case (.legacy, _):
            logChaos(.internalError, project)
            return Response(
                status: 503, headers: [("Retry-After", String(s.retryAfter)), ("Content-Type", "text/plain; charset=UTF-8")],
                body: Array("Unavailable".utf8))
        case (.v1, "QUOTA_EXCEEDED"):
            logChaos(.quotaExceeded, project)
            return V1Error.quotaExceeded(
                "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute' of service 'fcm.googleapis.com'.",
                retryAfter: Int64(s.retryAfter) * 1_000_000
            ).response
        case (.v1, "INTERNAL"):
            logChaos(.internalError, project)
            return V1Error(.internalServerError).response
        case (.v1, _):
            logChaos(.internalError, project)
            var e = V1Error(.unavailable)
            e.retryAfter = s.retryAfter
            return e.response
        case (.topics, let code):
            logChaos(code == "RESOURCE_EXHAUSTED" ? .quotaExceeded : .internalError, project)
            let status = code == "INTERNAL" ? 500 : code == "RESOURCE_EXHAUSTED" ? 429 : 503
            var r: Response =
                family == .legacy
                ? .json(status, "{\"error\":\(JSONWriter.quoted(code))}")
                : .googleError(
                    status, code,
                    code == "INTERNAL"
                        ? "Internal error encountered."
                        : code == "UNAVAILABLE" ? "The service is currently unavailable." : "Topic subscription rate exceeded.")
            if status != 500 { r.headers.append(("Retry-After", String(s.retryAfter))) }
            return r
        case (.apns, _):
            // A push's failure carries its device and apns-id: `APNsProvider` rolls and answers
            // it (`injectedAPNsFailure`) after authenticating the sender.
            preconditionFailure("APNs chaos is answered by APNsProvider, not Chaos.run")
        }
    }

    func logChaos(_ kind: EventKind, _ project: Project, device: Device? = nil, messageID: String? = nil) {
        log.append(
            kind: kind, time: clock.now(), projectID: project.id, projectNumber: project.number,
            messageID: messageID, device: device, reason: Self.reason)
    }

    /// True with probability `p`, from the chaos generator.
    private func chance(_ p: Double) -> Bool { p >= 1 || unitRandom() < p }

    private func unitRandom() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
}

extension SurfaceChaos {
    /// Legacy `Unavailable` and `InternalServerError` are per-recipient results (HTTP 200).
    var isPerRecipient: Bool { error == "Unavailable" || error == "InternalServerError" }
}
