import PushMockCore

/// The events of the next commit, written as they come in the layout `EventRows` describes:
/// a JSON array of device blocks, each the device's columns followed by its groups, and each
/// group the message's columns and the time followed by its events' `[seq, event, reason]`.
/// An event joins the open block when its device and token are the block's, and the open
/// group when its message and time are also the group's. The bytes are written here, commas
/// and all, rather than through a general JSON writer: this is the loop thread's whole cost
/// per event with `--data-dir`.
struct PendingCommit {
    /// One commit's events as `log` keeps them, and the seqs it spans.
    struct Commit: Sendable {
        let first, last: Int64
        let count: Int
        let json: ByteBuffer
    }

    private var out: ByteBuffer
    private(set) var count = 0
    private var first: Int64 = 0
    private var last: Int64 = 0
    /// The open block's device; nil before the first block.
    private var device: DeviceKey?
    /// The open group's time.
    private var groupTime: Timestamp = 0
    /// The message columns last written, and where in `out`: the open group's, and copied
    /// by a later group of the same message (a topic's fan-out, a block for each device).
    private var message: WrittenMessage?

    init(capacity: Int = 1 << 16) {
        out = ByteBuffer(capacity: capacity)
        out.byte(UInt8(ascii: "["))
    }

    /// Adds an event: to the open group, a new group of the open block, or a new block.
    mutating func append(_ e: Event) {
        if count == 0 { first = e.seq }
        count += 1
        last = e.seq
        let sameMessage = message?.key.matches(e) == true
        if let device, device.matches(e) {
            if groupTime == e.time, sameMessage {
                out.byte(UInt8(ascii: ","))
                writeOwn(e)
                return
            }
            close(levels: 2)
        } else {
            if device != nil { close(levels: 4) }
            device = DeviceKey(e)
            out.byte(UInt8(ascii: "["))
            Self.writeDevice(e, out)
            out.byte(UInt8(ascii: ","))
            out.byte(UInt8(ascii: "["))
        }
        openGroup(e, sameMessage: sameMessage)
    }

    /// Closes the commit and starts the next one empty.
    mutating func take() -> Commit {
        if device != nil {
            for _ in 0..<4 { out.byte(UInt8(ascii: "]")) }
        }
        out.byte(UInt8(ascii: "]"))
        let commit = Commit(first: first, last: last, count: count, json: out)
        self = PendingCommit(capacity: max(1 << 16, out.count))
        return commit
    }

    /// Ends the open group (its events and itself: 2 levels), or the group and its block (4),
    /// ready for the next.
    private func close(levels: Int) {
        for _ in 0..<levels { out.byte(UInt8(ascii: "]")) }
        out.byte(UInt8(ascii: ","))
    }

    /// Starts a group with its first event; its message columns copied when they were just
    /// written.
    private mutating func openGroup(_ e: Event, sameMessage: Bool) {
        groupTime = e.time
        out.byte(UInt8(ascii: "["))
        let start = out.count
        if sameMessage, let m = message {
            out.repeatBytes(m.range)
        } else {
            Self.writeMessage(e, out)
        }
        message = WrittenMessage(key: MessageKey(e), range: start..<out.count)
        out.byte(UInt8(ascii: ","))
        out.int(e.time)
        out.byte(UInt8(ascii: ","))
        out.byte(UInt8(ascii: "["))
        writeOwn(e)
    }

    /// One event's own columns, in `EventRows.eventColumns` order; a null reason is left out.
    private func writeOwn(_ e: Event) {
        out.byte(UInt8(ascii: "["))
        out.int(e.seq)
        out.byte(UInt8(ascii: ","))
        out.append(Self.kindJSON[e.kind.ordinal])
        if let r = e.reason {
            out.byte(UInt8(ascii: ","))
            out.string(r)
        }
        out.byte(UInt8(ascii: "]"))
    }

    /// `EventRows.messageColumns`, in order.
    private static func writeMessage(_ e: Event, _ out: ByteBuffer) {
        let m = e.message
        out.int(e.projectNumber)
        string(e.messageID, out)
        out.byte(UInt8(ascii: ","))
        if let t = e.messageType { out.append(typeJSON(t)) } else { out.null() }
        string(m?.options.collapseKey, out)
        int(m.map { Int64($0.options.priority.apnsPriority) }, out)
        int(m.map { Int64($0.options.ttl) }, out)
        string(m?.topic, out)
        int(m?.bulkID, out)
        string(m?.options.analyticsLabel, out)
        string(e.projectID, out)
        string(m?.api, out)
    }

    /// `EventRows.deviceColumns`, in order.
    private static func writeDevice(_ e: Event, _ out: ByteBuffer) {
        let d = e.device
        if let d { d.withFID { out.string(bytes: $0) } } else { out.null() }
        string(d?.platform.sdkPlatform, out)
        string(d?.app, out)
        string(d?.id, out)
        string(e.token, out)
    }

    private static func string(_ s: String?, _ out: ByteBuffer, first: Bool = false) {
        if !first { out.byte(UInt8(ascii: ",")) }
        if let s { out.string(s) } else { out.null() }
    }

    private static func int(_ n: Int64?, _ out: ByteBuffer) {
        out.byte(UInt8(ascii: ","))
        if let n { out.int(n) } else { out.null() }
    }

    /// Each event kind as a JSON string, by `ordinal`.
    private static let kindJSON = EventKind.allCases.map { Array(JSONWriter.quoted($0.rawValue).utf8) }
    /// Each message type as a JSON string.
    private static func typeJSON(_ t: MessageType) -> [UInt8] {
        switch t {
        case .displayNotification: displayNotificationJSON
        case .dataMessage: dataMessageJSON
        case .topic: topicJSON
        case .webPush: webPushJSON
        }
    }
    private static let displayNotificationJSON = Array(JSONWriter.quoted(MessageType.displayNotification.rawValue).utf8)
    private static let dataMessageJSON = Array(JSONWriter.quoted(MessageType.dataMessage.rawValue).utf8)
    private static let topicJSON = Array(JSONWriter.quoted(MessageType.topic.rawValue).utf8)
    private static let webPushJSON = Array(JSONWriter.quoted(MessageType.webPush.rawValue).utf8)

    /// Message columns written in this commit, what they were made of and where they are.
    private struct WrittenMessage {
        let key: MessageKey
        let range: Range<Int>
    }

    /// Everything a group's message columns are made of.
    private struct MessageKey {
        let message: Message?
        let messageID: String?
        let messageType: MessageType?
        let projectID: String
        let projectNumber: Int64

        init(_ e: Event) {
            message = e.message
            messageID = e.messageID
            messageType = e.messageType
            projectID = e.projectID
            projectNumber = e.projectNumber
        }

        func matches(_ e: Event) -> Bool {
            message === e.message && messageID == e.messageID && messageType == e.messageType && projectID == e.projectID
                && projectNumber == e.projectNumber
        }
    }

    /// Everything a block's device columns are made of.
    private struct DeviceKey {
        let device: Device?
        /// What the device's FID is read from (`Device.fidSource`).
        let fidSource: String?
        let token: String?

        init(_ e: Event) {
            device = e.device
            fidSource = e.device?.fidSource
            token = e.token
        }

        func matches(_ e: Event) -> Bool { device === e.device && fidSource == e.device?.fidSource && token == e.token }
    }
}
