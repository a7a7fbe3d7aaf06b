/// What became of one send, read from the log in one pass for `GET .../messages/{id}`: its
/// event counts, its first events, and its first devices with their timelines. A topic send
/// may reach a million devices, so the detail lists at most `limit` of each and counts the
/// rest; `GET .../events?message_id=` reads every event. Loop thread only.
struct DeliveryRecord {
    struct Recipient {
        let device: Device
        /// The message id the device was sent under (per device for multicast and topics).
        let messageID: String
        var timeline: [Event]
    }

    private(set) var counts: [EventKind: Int] = [:]
    private(set) var events: [Event] = []
    private(set) var eventsTotal = 0
    private(set) var recipients: [Recipient] = []
    /// The devices listed, plus one for each `MESSAGE_ACCEPTED` of a device beyond them.
    private(set) var devicesTotal = 0

    init(of message: Message, in log: EventLog, limit: Int) {
        var listed: [ObjectIdentifier: Int] = [:]
        log.visit { e in
            // A push that carried the send to a browser is part of its story, but for its own acceptance.
            guard e.message === message || (e.message?.forwarding === message && e.kind != .messageAccepted) else {
                return true
            }
            counts[e.kind, default: 0] += 1
            eventsTotal += 1
            if events.count < limit { events.append(e) }
            guard let device = e.device else { return true }
            if let i = listed[ObjectIdentifier(device)] {
                recipients[i].timeline.append(e)
            } else if let id = e.messageID, recipients.count < limit {
                listed[ObjectIdentifier(device)] = recipients.count
                recipients.append(Recipient(device: device, messageID: id, timeline: [e]))
                devicesTotal += 1
            } else if e.kind == .messageAccepted {
                devicesTotal += 1
            }
            return true
        }
    }
}
