/// Failure injection ("chaos"): per project and surface, a chance of the real service's
/// errors, of a dropped connection, and added latency, rolled on a generator `--chaos-seed`
/// seeds so a run repeats; plus the failures scripted for a device's next sends
/// (`:scriptErrors`). Chaos decides in no service's words (drop, fail with one of the
/// surface's codes, delay); the adapter on the surface renders the failure. It acts on
/// authenticated requests (their project is known) before they are processed, so a failed
/// request is never accepted. Every injected failure is logged with reason `chaos`.
/// Loop thread only.
final class Chaos {
    /// What one roll decided for one request.
    struct Roll {
        var drop: DropMode?
        /// The surface's error the request fails with, if it fails.
        var failure: ChaosFailure?
        var delaySeconds = 0.0
    }

    static let reason = "chaos"

    private let log: EventLog
    private let clock: Clock
    /// Chaos rolls only, so `--chaos-seed` repeats a run's failures whatever else draws.
    private var random: RandomSource
    /// Scripted failures by device, each entry holding its device (so the identifier is not
    /// reused while it is here) and dropped once used up. Usually empty: every send asks.
    private var scriptsByDevice: [ObjectIdentifier: DeviceScript] = [:]

    init(log: EventLog, clock: Clock, seed: UInt64?) {
        self.log = log
        self.clock = clock
        self.random = RandomSource(seed: seed)
    }

    /// Restarts the generator from `seed` (`PUT .../chaos` with a seed).
    func reseed(_ seed: UInt64) { random = RandomSource(seed: seed) }

    func roll(_ surface: ChaosSurface, _ project: Project) -> Roll {
        guard let settings = project.chaos[surface] else { return Roll() }
        return roll(surface, settings)
    }

    private func roll(_ surface: ChaosSurface, _ s: SurfaceChaos) -> Roll {
        var roll = Roll()
        if s.dropRate > 0, chance(s.dropRate) { roll.drop = s.drop }
        // Per-recipient errors are rolled per recipient (`perRecipientFailure`).
        if s.errorRate > 0, !surface.perRecipientErrors.contains(s.error), chance(s.errorRate) {
            roll.failure = ChaosFailure(code: s.error, retryAfter: s.retryAfter)
        }
        roll.delaySeconds = (s.latencyMs + (s.jitterMs > 0 ? unitRandom() * s.jitterMs : 0)) / 1000
        return roll
    }

    /// Runs `body` for a request on `surface` unless chaos drops or fails it first; whatever
    /// the answer, it waits for the rolled latency. `render` answers a failure in the API's
    /// own shape and names the event it is logged as.
    /// `keep`: a send API's record of the request it refused, so the message list shows it
    /// (nil for requests that are not sends, or that cannot be read).
    func run(
        _ surface: ChaosSurface, _ project: Project, failure render: (ChaosFailure) -> (Response, EventKind),
        keep: () -> Message? = { nil }, _ body: () -> Reply
    ) -> Reply {
        guard let settings = project.chaos[surface] else { return body() }
        let roll = self.roll(surface, settings)
        if let mode = roll.drop {
            logChaos(.internalError, project, message: keep())
            return .drop(mode)
        }
        guard let failure = roll.failure else { return Self.delay(body(), roll.delaySeconds) }
        let (response, event) = render(failure)
        logChaos(event, project, message: keep())
        return Self.delay(.response(response), roll.delaySeconds)
    }

    static func delay(_ reply: Reply, _ seconds: Double) -> Reply {
        guard seconds > 0, case .response(let r) = reply else { return reply }
        return .delayed(r, seconds: seconds)
    }

    /// A per-recipient failure for one recipient of a send on `surface`, if the roll says so:
    /// one of the surface's `perRecipientErrors`.
    func perRecipientFailure(_ surface: ChaosSurface, _ project: Project) -> String? {
        guard let s = project.chaos[surface], surface.perRecipientErrors.contains(s.error), s.errorRate > 0,
            chance(s.errorRate)
        else { return nil }
        return s.error
    }

    /// Replaces the device's FCM script (nil: leaves it as it is) and its APNs script.
    func script(_ device: Device, refusals: [Refusal]?, codes: [String]?) {
        var s = scriptsByDevice[ObjectIdentifier(device)] ?? DeviceScript(device: device)
        if let refusals { s.refusals = refusals }
        if let codes { s.codes = codes }
        keep(s)
    }

    /// The next scripted refusal of an FCM send to the device, taken from its script.
    func scriptedRefusal(_ device: Device) -> Refusal? {
        scriptsByDevice.isEmpty ? nil : takeNext(\.refusals, of: device)
    }

    /// The next scripted code of an APNs push to the device, taken from its script.
    func scriptedCode(_ device: Device) -> String? { scriptsByDevice.isEmpty ? nil : takeNext(\.codes, of: device) }

    /// (Called only when some device has a script: the key path is made at every call.)
    private func takeNext<T>(_ list: WritableKeyPath<DeviceScript, [T]>, of device: Device) -> T? {
        guard var s = scriptsByDevice[ObjectIdentifier(device)], !s[keyPath: list].isEmpty else {
            return nil
        }
        let next = s[keyPath: list].removeFirst()
        keep(s)
        return next
    }

    private func keep(_ s: DeviceScript) {
        scriptsByDevice[ObjectIdentifier(s.device)] = s.refusals.isEmpty && s.codes.isEmpty ? nil : s
    }

    func logChaos(
        _ kind: EventKind, _ project: Project, device: Device? = nil, messageID: String? = nil, message: Message? = nil
    ) {
        log.append(
            kind: kind, time: clock.now(), projectID: project.id, projectNumber: project.number, message: message,
            messageID: messageID ?? message?.id, device: device, reason: Self.reason)
        message?.failed += 1
    }

    /// True with probability `p`, from the chaos generator.
    private func chance(_ p: Double) -> Bool { p >= 1 || unitRandom() < p }

    private func unitRandom() -> Double { Double(random.next() >> 11) / Double(1 << 53) }
}

/// A request's injected failure: one of its surface's error codes, and the `Retry-After`
/// seconds its answer carries where the service sends one.
struct ChaosFailure {
    let code: String
    let retryAfter: Int
}

/// The failures scripted for a device's next sends (`POST .../devices/{id}:scriptErrors`),
/// kept by chaos, which injects them: FCM sends (legacy and HTTP v1) take neutral refusals that
/// each API renders as its own error; APNs provider API pushes take APNs reasons by name.
struct DeviceScript {
    /// The device it was scripted for.
    let device: Device
    var refusals: [Refusal] = []
    var codes: [String] = []
}
