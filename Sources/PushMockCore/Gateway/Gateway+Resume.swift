/// Resuming from the durable log at construction: the saved control-plane state, then the
/// newest events, then new events go to the store.
extension Gateway {
    func resume(_ durable: DurableLog) throws(SeedError) {
        if let state = durable.savedState {
            let recording = changes.recording
            changes.recording = false
            defer { changes.recording = recording }
            try seed(state, file: durable.path + " (saved state)")
        }
        restore(durable.events, cutShort: durable.cutShort)
        log.continueAfter(durable.lastStoredSeq)
        log.sink = durable.sink
    }

    /// Puts stored events back into the log, oldest first, after the state was restored.
    /// Each send becomes a message again, without its request body (which is not stored):
    /// its options and target come from the columns, so the log's rows read as before.
    /// Rows that cannot be put back (a damaged row, a project the saved state lacks), and the
    /// events of sends cut short before their answer, are counted in `unrestored` for the
    /// server to report.
    private func restore(_ events: [StoredEvent], cutShort: Set<String>) {
        var messages: [String: Message] = [:]
        var left: Set<String> = []
        defer { unrestored.cutShortSends = left.count }
        for s in events {
            if !cutShort.isEmpty, let id = s.messageID, case let key = s.projectID + "\u{0}" + id, cutShort.contains(key) {
                unrestored.cutShort += 1
                left.insert(key)
                continue
            }
            guard let kind = EventKind(rawValue: s.kind) else {
                unrestored.unknownKind += 1
                continue
            }
            guard let project = directory.project(s.projectID) else {
                unrestored.unknownProject += 1
                continue
            }
            var message: Message?
            if let id = s.messageID {
                let key = project.id + "\u{0}" + id
                if let m = messages[key] {
                    message = m
                } else if let options = Self.options(s) {
                    let m = Message(
                        id: id, projectID: project.id, projectNumber: project.number, api: s.api ?? "unknown",
                        target: s.topic.map { .topic($0) } ?? .token, options: options, format: .stored, requestBytes: [],
                        requestHead: RequestHead(), receivedAt: s.time, bulkID: s.bulkID, dryRun: false)
                    project.messages.add(m) // once per id: `messages` remembers it
                    messages[key] = m
                    message = m
                }
            }
            let device = s.deviceID.flatMap { project.devices[$0] }
            log.restore(
                Event(
                    seq: s.seq, time: s.time, kind: kind, projectID: project.id, projectNumber: project.number,
                    message: message, messageID: s.messageID, messageType: s.messageType.flatMap(MessageType.init),
                    device: device, token: s.token, reason: s.reason, delay: nil))
        }
    }

    /// A message's options from an event's columns; nil for events of no particular send.
    private static func options(_ s: StoredEvent) -> PushOptions? {
        guard let type = s.messageType.flatMap(MessageType.init), let ttl = s.ttl, let priority = s.priority else { return nil }
        var content = PushContent(
            priority: priority == 10 ? .high : .normal, collapseKey: s.collapseKey, ttl: ttl,
            analyticsLabel: s.label)
        content.options.isNotification = type == .displayNotification
        return content.options
    }
}

/// Stored events left out of the log at start, by why; the rows stay in the store.
public struct Unrestored: Equatable, Sendable {
    /// The `event` column names no event pushmock logs: the row is damaged.
    public var unknownKind = 0
    /// The project is not in the saved state (damaged, or created less than a second before
    /// pushmock was killed, so its state was never saved).
    public var unknownProject = 0
    /// Events of sends a stop cut short before they were answered, and how many sends.
    public var cutShort = 0
    public var cutShortSends = 0
    public var count: Int { unknownKind + unknownProject }
}
