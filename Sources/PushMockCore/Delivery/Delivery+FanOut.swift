/// A topic or condition send reaches its devices a slice at a time: the first slice while the
/// request is handled, the rest (a topic may have a million subscribers) in later turns of
/// the loop, with other connections served between, and the send is answered after its last
/// device (docs/hardening.md, "Stalls"). Every device is reached at the send's one time.
final class FanOut {
    let message: Message
    let project: Project
    let now: Timestamp
    /// The devices to reach, as the topic's list was when the send came (a later
    /// subscription copies the list, not this), and how many were reached. An index into
    /// the array, not a type-erased iterator: a million devices are walked one call each.
    private let devices: [Device]
    private var reached = 0
    private(set) var isDone = false

    fileprivate init(_ message: Message, _ project: Project, _ now: Timestamp, _ devices: [Device]) {
        self.message = message
        self.project = project
        self.now = now
        self.devices = devices
    }

    /// The next device, if any is left.
    fileprivate func next() -> Device? {
        guard reached < devices.count else {
            isDone = true
            return nil
        }
        defer { reached += 1 }
        return devices[reached]
    }
}

extension Delivery {
    /// Devices reached in one slice: a few milliseconds of the loop.
    static let fanOutSlice = 2_000

    /// A topic or condition send: the fan-out row, then each device in turn; what does not
    /// fit in the first slice is left in `unfinishedFanOut`.
    func broadcast(_ message: Message, to devices: [Device], project: Project) {
        let now = clock.now()
        // Events logged before the answer: the durable log knows, before the first of them,
        // so a stop before the answer leaves them out at the restart.
        let sliced = devices.count > Self.fanOutSlice
        if sliced { log.noteUnanswered(projectID: project.id, messageID: message.id, open: true) }
        log.append(
            kind: .messageAccepted, time: now, projectID: project.id, projectNumber: project.number,
            message: message, messageID: message.id, messageType: .topic)
        let fanOut = FanOut(message, project, now, devices)
        if carryOn(fanOut) {
            if sliced { answered(message, in: project) }
        } else {
            unfinishedFanOut = fanOut
        }
    }

    /// A send logged before its answer is answered now.
    func answered(_ message: Message, in project: Project) {
        log.noteUnanswered(projectID: project.id, messageID: message.id, open: false)
    }

    /// Reaches the next slice of a fan-out's devices; true when none are left.
    func carryOn(_ fanOut: FanOut) -> Bool {
        var reached = 0
        while reached < Self.fanOutSlice, let device = fanOut.next() {
            reach(device, with: fanOut.message, project: fanOut.project, now: fanOut.now)
            reached += 1
        }
        return fanOut.isDone
    }

    /// One device of a fan-out: refused with an event when it cannot take the message,
    /// skipped when its token expired long ago, else delivered.
    private func reach(_ device: Device, with message: Message, project: Project, now: Timestamp) {
        guard device.token != nil else { return }
        if let refusal = refusal(of: device, message.options, project: project) {
            logRejection(
                refusal.event, reason: refusal.reason, project: project, message: message, messageID: message.id,
                device: device)
            return
        }
        if device.idle(at: now) > DeviceModel.tokenExpiresAfter { return }
        deliver(message, messageID: message.id, to: device, project: project, now: now)
    }
}
