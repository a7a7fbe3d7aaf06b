/// What real clients (`RealClient`) say became of the pushes sent to them over their own
/// connections (`ClientDelivery`): delivered when acknowledged, dropped with the client's
/// reason, kept again when the connection ended before an answer.
extension Delivery {
    /// The client took the push and handed it to the app (its service worker).
    func acknowledged(_ item: Pending, by device: Device, project: Project) {
        let now = clock.now()
        device.receive(InboxEntry(message: item.message, messageID: item.messageID, receivedAt: now, shown: .app))
        let delay = now - item.since
        record(.messageDelivered, item, device, project, delay: delay > 0 ? delay : nil, at: now)
    }

    /// The client could not take the push (it could not decrypt it, its app failed): `reason`.
    func refused(_ item: Pending, by device: Device, project: Project, reason: String) {
        record(.messageDropped, item, device, project, reason: reason)
    }

    /// The connection ended before the client answered: the pushes wait for it again, within
    /// their TTL, as a push service keeps what was not acknowledged.
    func unacknowledged(_ items: [Pending], of device: Device, project: Project) {
        for item in items {
            if item.expires <= clock.now() {
                record(.messageExpired, item, device, project, reason: DropReason.ttlExpired.rawValue)
            } else {
                store(item, for: device, project: project, because: "not_acknowledged")
            }
        }
    }
}

extension Delivery {
    /// A real client's connection opened (it logged in, said `hello`) or ended: it is online,
    /// and what waited for it goes out, or away, and what comes waits.
    func connected(_ device: Device, _ online: Bool) {
        device.realClient?.connected = online
        if online { device.realClient?.lastHeard = clock.now() }
        guard let project = directory[device.projectID], device.state.online != online else { return }
        var state = device.state
        state.online = online
        change(device, to: state, project: project)
    }

    /// A stored push the client says it already took (it named it as it came back): delivered,
    /// and not sent again.
    func acknowledgedStored(_ messageID: String, by device: Device, project: Project) {
        guard let i = device.delivery.pending.firstIndex(where: { $0.messageID == messageID }) else { return }
        let item = device.delivery.pending.remove(at: i)
        acknowledged(item, by: device, project: project)
    }
}
