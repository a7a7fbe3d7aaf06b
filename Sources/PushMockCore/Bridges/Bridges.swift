/// The delivery bridges of every project, and what they carried (docs/bridges.md). It watches
/// the log only while a bridge exists, turns each matching fate of a message on a device into
/// a `BridgeDelivery` for the server's carrier, and logs what became of every attempt.
/// Loop thread only.
final class Bridges {
    private let log: EventLog
    private let clock: Clock
    private let directory: ProjectDirectory
    private let changes: StateChanges
    private let carrier: (any BridgeCarrier)?
    /// Each project's bridges, in the order they were made.
    private var byProject: [String: [Bridge]] = [:]
    /// `--webhook`: one bridge for every project.
    let everyProject: Bridge?
    private var stats: [String: BridgeStats] = [:]
    /// Events a full queue turned away since the last `collect`, by bridge and project.
    private var turnedAway: [OverflowKey: Int] = [:]
    private var lastNumber = 0

    init(
        log: EventLog, clock: Clock, directory: ProjectDirectory, changes: StateChanges,
        carrier: (any BridgeCarrier)?, configuration: Configuration, random: RandomSource
    ) {
        self.log = log
        self.clock = clock
        self.directory = directory
        self.changes = changes
        self.carrier = carrier
        everyProject = configuration.webhookURL.map { url in
            let hook = Bridge.Webhook(
                url: url, secret: configuration.webhookSecret ?? random.hex(32), timeoutSeconds: 5, maxAttempts: 8)
            return Bridge(
                id: "webhook", projectID: nil, scope: .project, events: Bridge.fateEvents, target: .webhook(hook),
                queueLimit: Bridge.defaultQueueLimit)
        }
        watchLog()
    }

    /// A project's bridges, the `--webhook` one first.
    func list(_ projectID: String) -> [Bridge] { (everyProject.map { [$0] } ?? []) + (byProject[projectID] ?? []) }

    func bridge(_ projectID: String, _ id: String) -> Bridge? { list(projectID).first { $0.id == id } }

    func stats(of b: Bridge) -> BridgeStats { stats[b.key] ?? BridgeStats() }

    /// The next free `bN` id in a project.
    func nextID(in projectID: String) -> String {
        repeat { lastNumber += 1 } while bridge(projectID, "b\(lastNumber)") != nil
        return "b\(lastNumber)"
    }

    func add(_ b: Bridge) {
        byProject[b.projectID!, default: []].append(b)
        changes.record()
        watchLog()
    }

    func remove(_ b: Bridge) {
        byProject[b.projectID!]?.removeAll { $0.id == b.id }
        stats[b.key] = nil
        carrier?.retire(bridgeID: b.key)
        changes.record()
        watchLog()
    }

    /// A project was reset: its bridges go with the rest of its state.
    func removeAll(projectID: String) {
        for b in byProject[projectID] ?? [] { remove(b) }
    }

    /// The log is watched only while some bridge exists, so sends pay nothing otherwise.
    private func watchLog() {
        let any = everyProject != nil || byProject.values.contains { !$0.isEmpty }
        log.listener = any ? { [unowned self] event in forward(event) } : nil
    }

    /// Hands an event to every bridge it matches. What a full queue turns away is counted
    /// here and logged by `collect`, one `BRIDGE_OVERFLOW` per bridge and project with the
    /// count: a dead webhook under load then adds a row every 100 ms, not one per event.
    private func forward(_ e: Event) {
        guard Bridge.fateEvents.contains(e.kind), let device = e.device else { return }
        for b in list(e.projectID) where b.matches(e.kind, projectID: e.projectID, device: device) {
            if let carrier, carrier.hasRoom(b), carrier.carry(BridgeEnvelope.make(for: e, on: device, through: b)) {
                stats[b.key, default: BridgeStats()].forwarded += 1
            } else {
                stats[b.key, default: BridgeStats()].overflowed += 1
                turnedAway[OverflowKey(bridge: b.key, projectID: e.projectID), default: 0] += 1
            }
        }
    }

    private struct OverflowKey: Hashable {
        let bridge: String
        let projectID: String
    }

    /// Logs the attempts the carrier finished since the last call (the server calls this
    /// every 100 ms).
    func collect() {
        for (key, count) in turnedAway {
            guard let project = directory[key.projectID], let b = list(key.projectID).first(where: { $0.key == key.bridge })
            else { continue }
            log.append(
                kind: .bridgeOverflow, time: clock.now(), projectID: project.id, projectNumber: project.number,
                reason:
                    "\(b.id) \(b.target.name): \(count) event\(count == 1 ? "" : "s") not forwarded, queue full (\(b.queueLimit) waiting)"
            )
        }
        turnedAway.removeAll()
        guard let carrier else { return }
        for a in carrier.finishedAttempts() {
            let d = a.delivery
            guard let project = directory[d.projectID] else { continue }
            let key = d.bridge.key
            if stats[key] != nil {
                stats[key]!.attempts += 1
                if a.succeeded { stats[key]!.succeeded += 1 } else if a.final { stats[key]!.failed += 1 }
            }
            log.append(
                kind: .bridgeAttempt, time: clock.now(), projectID: project.id, projectNumber: project.number,
                messageID: d.messageID, device: d.deviceID.flatMap { project.devices[$0] },
                reason: "\(d.bridge.id) \(d.bridge.target.name) \(d.eventName) attempt \(a.number): \(a.detail)")
        }
    }

    /// Every project's bridges for the saved state.
    func forSnapshot(_ projectID: String) -> [Bridge] { byProject[projectID] ?? [] }
}

/// What a bridge has done since it was made.
struct BridgeStats {
    var forwarded = 0
    var attempts = 0
    var succeeded = 0
    var failed = 0
    var overflowed = 0
}
