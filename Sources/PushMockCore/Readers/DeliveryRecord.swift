/// What became of one send, read from the log in one pass for `GET .../messages/{id}`: its
/// event counts, its first events, a page of its devices with their timelines, and every
/// device's outcome counted by platform, event and reason. A topic send may reach a million
/// devices, so the detail lists at most `limit` events and one page of devices, and counts
/// the rest; `GET .../events?message_id=` reads every event. Loop thread only.
struct DeliveryRecord {
    struct Recipient {
        let device: Device
        /// The message id the device was sent under (per device for multicast and topics).
        let messageID: String
        var timeline: [Event]

        /// What became of the message on the device: its last event but a bridge's (a
        /// bridge's attempts tell what the bridge did, not the device).
        var fate: Event? { timeline.last { !$0.kind.isBridge } }
    }

    /// One line of the outcome summary: devices of a platform whose last event (but a
    /// bridge's) is `kind`, with `reason`.
    struct Outcome: Hashable {
        let platform: Platform
        let kind: EventKind
        let reason: String?
    }

    private(set) var counts: [EventKind: Int] = [:]
    private(set) var events: [Event] = []
    private(set) var eventsTotal = 0
    /// The devices from `deviceOffset`, at most `deviceLimit`, in the order the send reached them.
    private(set) var recipients: [Recipient] = []
    /// Every device the send reached.
    private(set) var devicesTotal = 0
    /// Devices per outcome, over all of them.
    private(set) var outcomes: [Outcome: Int] = [:]

    init(of message: Message, in log: EventLog, limit: Int, deviceOffset: Int = 0, deviceLimit: Int) {
        // Each device's position in the order reached, and its outcome so far.
        var order: [ObjectIdentifier: Int] = [:]
        var fates: [Outcome?] = []
        log.visit { e in
            // A push that carried the send to a browser is part of its story, but for its own acceptance.
            guard e.message === message || (e.message?.forwarding === message && e.kind != .messageAccepted) else {
                return true
            }
            counts[e.kind, default: 0] += 1
            eventsTotal += 1
            if events.count < limit { events.append(e) }
            guard let device = e.device else { return true }
            let n: Int
            if let known = order[ObjectIdentifier(device)] {
                n = known
            } else {
                n = fates.count
                order[ObjectIdentifier(device)] = n
                fates.append(nil)
                if n >= deviceOffset, recipients.count < deviceLimit {
                    recipients.append(Recipient(device: device, messageID: e.messageID ?? message.id, timeline: []))
                }
            }
            if !e.kind.isBridge { fates[n] = Outcome(platform: device.platform, kind: e.kind, reason: e.reason) }
            // Devices from `deviceOffset` are listed in order, one each.
            if n >= deviceOffset, n - deviceOffset < recipients.count { recipients[n - deviceOffset].timeline.append(e) }
            return true
        }
        devicesTotal = fates.count
        for case let f? in fates { outcomes[f, default: 0] += 1 }
    }
}

extension EventKind {
    /// A bridge's own events: an attempt to pass a push on, or its queue overflowing.
    var isBridge: Bool { self == .bridgeAttempt || self == .bridgeOverflow }
}
