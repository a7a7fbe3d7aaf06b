import PushMockCore

/// The events of the next commit, written as they come in the layout `EventRows` describes:
/// a JSON array of groups, each the columns its events share followed by their own
/// `[seq, event, reason]`. An event joins the open group when its message, device, token and
/// time are the group's. The bytes are written here, commas and all, rather than through a
/// general JSON writer: this is the loop thread's whole cost per event with `--data-dir`.
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
    /// The open group's time; nil before the first group.
    private var groupTime: Timestamp?
    /// The open group's message and device columns, where they were written in `out`: a
    /// group of the same message (a topic's fan-out) or device (repeated sends) copies them.
    private var message: Written<MessageKey>?
    private var device: Written<DeviceKey>?

    init(capacity: Int = 1 << 16) {
        out = ByteBuffer(capacity: capacity)
        out.byte(UInt8(ascii: "["))
    }

    /// Adds an event: to the open group when it belongs there, else as a new group.
    mutating func append(_ e: Event) {
        if count == 0 { first = e.seq }
        count += 1
        last = e.seq
        let sameMessage = message?.key.matches(e) == true
        let sameDevice = device?.key.matches(e) == true
        if groupTime == e.time, sameMessage, sameDevice {
            out.byte(UInt8(ascii: ","))
            writeOwn(e)
            return
        }
        if groupTime != nil {
            out.byte(UInt8(ascii: "]"))
            out.byte(UInt8(ascii: "]"))
            out.byte(UInt8(ascii: ","))
        }
        groupTime = e.time
        out.byte(UInt8(ascii: "["))
        if sameMessage, let m = message {
            out.repeatBytes(m.range)
        } else {
            message = write(MessageKey(e), e, Self.writeMessage)
        }
        out.byte(UInt8(ascii: ","))
        if sameDevice, let d = device {
            out.repeatBytes(d.range)
        } else {
            device = write(DeviceKey(e), e, Self.writeDevice)
        }
        out.byte(UInt8(ascii: ","))
        out.int(e.time)
        out.byte(UInt8(ascii: ","))
        out.byte(UInt8(ascii: "["))
        writeOwn(e)
    }

    /// Closes the commit and starts the next one empty.
    mutating func take() -> Commit {
        if groupTime != nil {
            out.byte(UInt8(ascii: "]"))
            out.byte(UInt8(ascii: "]"))
        }
        out.byte(UInt8(ascii: "]"))
        let commit = Commit(first: first, last: last, count: count, json: out)
        self = PendingCommit(capacity: max(1 << 16, out.count))
        return commit
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
        string(e.messageType?.rawValue, out)
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
        string(d?.fid, out, first: true)
        string(d?.platform.sdkPlatform, out)
        string(d?.app, out)
        string(d?.id, out)
        string(e.token, out)
    }

    /// Writes a group's message or device columns, and remembers where.
    private func write<Key>(_ key: Key, _ e: Event, _ columns: (Event, ByteBuffer) -> Void) -> Written<Key> {
        let start = out.count
        columns(e, out)
        return Written(key: key, range: start..<out.count)
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

    /// Columns written in this commit, what they were made of and where they are.
    private struct Written<Key> {
        let key: Key
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

    /// Everything a group's device columns are made of.
    private struct DeviceKey {
        let device: Device?
        let fid: String?
        let token: String?

        init(_ e: Event) {
            device = e.device
            fid = e.device?.fid
            token = e.token
        }

        func matches(_ e: Event) -> Bool { device === e.device && fid == e.device?.fid && token == e.token }
    }
}
