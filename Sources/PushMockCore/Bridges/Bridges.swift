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
    /// Each project's bridges, in the order they were made; no entry for a project without.
    private var byProject: [String: [Active]] = [:]
    /// `--webhook`: one bridge for every project.
    private let forEveryProject: Active?
    private var lastNumber = 0
    /// `--allow-command`: the programs command bridges may run.
    private let allowedCommands: Set<String>
    /// Bridges made through the control API and fixtures, in every project.
    private var count = 0

    /// At most this many bridges in a project, and in the whole instance: each has its own
    /// queue and threads (docs/hardening.md).
    static let perProject = 16
    static let inTotal = 64

    /// A bridge in use, with what it has done.
    private final class Active {
        let bridge: Bridge
        var stats = BridgeStats()
        /// Events its full queue turned away since the last `collect`, by project; the
        /// latest project's count is kept apart, so counting one is not a lookup.
        var turnedAway: [String: Int] = [:]
        var latest: (projectID: String, count: Int)?

        func turnAway(_ projectID: String) {
            if latest?.projectID == projectID {
                latest!.count += 1
                return
            }
            if let l = latest { turnedAway[l.projectID, default: 0] += l.count }
            latest = (projectID, 1)
        }

        /// What was turned away since the last call, by project.
        func takeTurnedAway() -> [String: Int] {
            if let l = latest { turnedAway[l.projectID, default: 0] += l.count }
            defer {
                turnedAway.removeAll()
                latest = nil
            }
            return turnedAway
        }
        /// The queue was full: it counts as full until the next `collect`.
        var full = false

        init(_ bridge: Bridge) { self.bridge = bridge }
    }

    init(
        log: EventLog, clock: Clock, directory: ProjectDirectory, changes: StateChanges,
        carrier: (any BridgeCarrier)?, configuration: Configuration, random: RandomSource
    ) {
        self.log = log
        self.clock = clock
        self.directory = directory
        self.changes = changes
        self.carrier = carrier
        allowedCommands = Set(configuration.allowedCommands)
        forEveryProject = configuration.webhookURL.map { url in
            let hook = Bridge.Webhook(
                url: url, secret: configuration.webhookSecret ?? random.hex(32), timeoutSeconds: 5, maxAttempts: 8)
            return Active(
                Bridge(
                    id: "webhook", projectID: nil, scope: .project, events: Bridge.fateEvents, target: .webhook(hook),
                    queueLimit: Bridge.defaultQueueLimit))
        }
        watchLog()
    }

    /// `--webhook`'s bridge.
    var everyProject: Bridge? { forEveryProject?.bridge }

    /// A project's bridges, the `--webhook` one first.
    private func active(_ projectID: String) -> [Active] {
        (forEveryProject.map { [$0] } ?? []) + (byProject[projectID] ?? [])
    }

    func list(_ projectID: String) -> [Bridge] { active(projectID).map(\.bridge) }

    func bridge(_ projectID: String, _ id: String) -> Bridge? { list(projectID).first { $0.id == id } }

    func stats(of b: Bridge) -> BridgeStats { entry(b)?.stats ?? BridgeStats() }

    /// The bridge's entry while it exists (a removed bridge's late attempts find none).
    private func entry(_ b: Bridge) -> Active? {
        guard let projectID = b.projectID else { return forEveryProject }
        return byProject[projectID]?.first { $0.bridge.key == b.key }
    }

    /// The next free `bN` id in a project.
    func nextID(in projectID: String) -> String {
        repeat { lastNumber += 1 } while bridge(projectID, "b\(lastNumber)") != nil
        return "b\(lastNumber)"
    }

    /// Whether `--allow-command` lets a command bridge run `program` (its argv[0]).
    func mayRun(_ program: String) -> Bool { allowedCommands.contains("*") || allowedCommands.contains(program) }

    /// Why another bridge cannot be made in the project now, if it cannot.
    func full(_ projectID: String) -> String? {
        if (byProject[projectID]?.count ?? 0) >= Self.perProject {
            return "Project \(projectID) has \(Self.perProject) bridges, the most a project can have; remove one first."
        }
        if count >= Self.inTotal { return "pushmock has \(Self.inTotal) bridges, the most it keeps; remove one first." }
        return nil
    }

    func add(_ b: Bridge) {
        count += 1
        byProject[b.projectID!, default: []].append(Active(b))
        changes.project(b.projectID!)
        watchLog()
    }

    func remove(_ b: Bridge) {
        let projectID = b.projectID!
        guard let i = byProject[projectID]?.firstIndex(where: { $0.bridge.id == b.id }) else { return }
        byProject[projectID]?.remove(at: i)
        count -= 1
        if byProject[projectID]?.isEmpty == true { byProject[projectID] = nil }
        carrier?.retire(bridgeID: b.key)
        changes.project(projectID)
        watchLog()
    }

    /// A project was reset: its bridges go with the rest of its state.
    func removeAll(projectID: String) {
        for a in byProject[projectID] ?? [] { remove(a.bridge) }
    }

    /// The log is watched only while some bridge exists, so sends pay nothing otherwise.
    private func watchLog() {
        let any = forEveryProject != nil || !byProject.isEmpty
        log.listener = any ? { [unowned self] event in forward(event) } : nil
    }

    /// Hands an event to every bridge it matches. What a full queue turns away is counted
    /// here and logged by `collect`, one `BRIDGE_OVERFLOW` per bridge and project with the
    /// count: a dead webhook under load then adds a row every 100 ms, not one per event.
    private func forward(_ e: Event) {
        guard Bridge.fateBits & 1 << UInt64(e.kind.ordinal) != 0, let device = e.device else { return }
        if let a = forEveryProject { offer(e, device, to: a) }
        if !byProject.isEmpty, let list = byProject[e.projectID] {
            for a in list { offer(e, device, to: a) }
        }
    }

    /// A queue found full is taken as full until the next `collect` (100 ms): a dead webhook
    /// under load then costs each event a counter, not a lock and a lookup.
    private func offer(_ e: Event, _ device: Device, to a: Active) {
        guard a.bridge.matches(e.kind, projectID: e.projectID, device: device) else { return }
        if !a.full, let carrier, carrier.hasRoom(a.bridge),
            carrier.carry(BridgeEnvelope.make(for: e, on: device, through: a.bridge))
        {
            a.stats.forwarded += 1
            return
        }
        a.full = true
        a.stats.overflowed += 1
        a.turnAway(e.projectID)
    }

    /// Logs the attempts the carrier finished since the last call (the server calls this
    /// every 100 ms).
    func collect() {
        for a in (forEveryProject.map { [$0] } ?? []) + byProject.values.joined() {
            a.full = false
            for (projectID, count) in a.takeTurnedAway() {
                guard let project = directory[projectID] else { continue }
                log.append(
                    kind: .bridgeOverflow, time: clock.now(), projectID: project.id, projectNumber: project.number,
                    reason:
                        "\(a.bridge.id) \(a.bridge.target.name): \(count) event\(count == 1 ? "" : "s") not forwarded, queue full (at most \(a.bridge.queueLimit) deliveries, \(BridgeDelivery.heldLimitPerBridge >> 20) MiB)"
                )
            }
        }
        guard let carrier else { return }
        for attempt in carrier.finishedAttempts() {
            let d = attempt.delivery
            guard let project = directory[d.projectID] else { continue }
            if let a = entry(d.bridge) {
                a.stats.attempts += 1
                if attempt.succeeded { a.stats.succeeded += 1 } else if attempt.final { a.stats.failed += 1 }
            }
            log.append(
                kind: .bridgeAttempt, time: clock.now(), projectID: project.id, projectNumber: project.number,
                // Of the message, when it is still kept: its timeline shows the attempts.
                message: d.messageID.flatMap { project.messages.message(id: $0) }, messageID: d.messageID,
                device: d.deviceID.flatMap { project.devices[$0] },
                reason: "\(d.bridge.id) \(d.bridge.target.name) \(d.eventName) attempt \(attempt.number): \(attempt.detail)")
        }
    }

    /// Every project's bridges for the saved state.
    func forSavedState(_ projectID: String) -> [Bridge] { (byProject[projectID] ?? []).map(\.bridge) }
}

/// What a bridge has done since it was made.
struct BridgeStats {
    var forwarded = 0
    var attempts = 0
    var succeeded = 0
    var failed = 0
    var overflowed = 0
}
