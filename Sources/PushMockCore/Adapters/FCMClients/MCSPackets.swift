/// MCS, the connection Google's GCM clients keep to `mtalk.google.com:5228`
/// (docs/reference/fcm-clients.md §5): packets of a one-byte tag, a varint length and a
/// protobuf message, the first one each way after a version byte (41). `MCSReader` takes them
/// from the bytes as they arrive; the message types below read and write the fields pushmock
/// uses, by number (Chromium's `mcs.proto`). Pure: no sockets.
enum MCSTag: UInt8, Sendable {
    case heartbeatPing = 0
    case heartbeatAck = 1
    case loginRequest = 2
    case loginResponse = 3
    case close = 4
    case messageStanza = 5
    case presenceStanza = 6
    case iqStanza = 7
    case dataMessageStanza = 8
    case batchPresenceStanza = 9
    case streamErrorStanza = 10
    case httpRequest = 11
    case httpResponse = 12
    case bindAccountRequest = 13
    case bindAccountResponse = 14
    case talkMetadata = 15
}

/// Reads packets from a client: the version byte first, then tag, length, message.
struct MCSReader {
    /// The protocol version both sides send (38 is the one older version clients still take).
    static let version: UInt8 = 41
    /// A client's packets are small (a login is a few hundred bytes): anything over this is
    /// refused and the connection closed.
    static let maxPacket = 32 * 1024

    enum Failure: Error, Equatable {
        case unsupportedVersion(UInt8)
        case unknownTag(UInt8)
        case tooLarge(Int)
        case badLength
        case malformed(MCSTag)
    }

    private var versionRead = false

    /// The next whole packet at the start of `bytes` and how many bytes it took; the version
    /// byte is taken on its own (`(1, nil)`); `(0, nil)` when more bytes are needed.
    mutating func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> (consumed: Int, packet: (MCSTag, [UInt8])?) {
        guard let first = bytes.first else { return (0, nil) }
        if !versionRead {
            guard first == Self.version || first == 38 else { throw .unsupportedVersion(first) }
            versionRead = true
            return (1, nil)
        }
        guard let tag = MCSTag(rawValue: first) else { throw .unknownTag(first) }
        var at = 1
        var length = 0
        var shift = 0
        while true {
            guard at < bytes.count else { return (0, nil) }
            let b = bytes[at]
            at += 1
            length |= Int(b & 0x7F) << shift
            if b & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw .badLength }
        }
        guard length <= Self.maxPacket else { throw .tooLarge(length) }
        guard bytes.count - at >= length else { return (0, nil) }
        return (at + length, (tag, Array(bytes[at..<(at + length)])))
    }
}

/// Writes packets to a client: the version byte before the first.
struct MCSWriter {
    private var versionWritten = false

    mutating func packet(_ tag: MCSTag, _ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 7)
        if !versionWritten {
            out.append(MCSReader.version)
            versionWritten = true
        }
        out.append(tag.rawValue)
        ProtoWriter.appendVarint(UInt64(message.count), to: &out)
        out += message
        return out
    }
}

/// A client's `LoginRequest` (tag 2), the fields pushmock reads.
struct MCSLogin {
    var id = ""
    var domain = ""
    /// The android id and security token, decimal (`user`, `auth_token`).
    var user = ""
    var authToken = ""
    var deviceID = ""
    /// What the client says it already received (its acknowledgements since its last login).
    var receivedPersistentIDs: [String] = []

    init(_ payload: [UInt8]) throws(ProtoReader.Malformed) {
        for f in try ProtoReader.fields(payload[...]) {
            switch f.number {
            case 1: id = f.string ?? ""
            case 2: domain = f.string ?? ""
            case 3: user = f.string ?? ""
            case 5: authToken = f.string ?? ""
            case 6: deviceID = f.string ?? ""
            case 10: if let s = f.string { receivedPersistentIDs.append(s) }
            default: break
            }
        }
    }

    /// `LoginResponse` (tag 3): the request's `id`, and no `error` at all on success
    /// (firebase-messaging fails on any, even code 0); the heartbeat interval the server wants.
    static func response(id: String, lastStreamIDReceived: Int, now: Timestamp, heartbeatMillis: Int) -> [UInt8] {
        var w = ProtoWriter()
        w.string(1, id)
        w.string(2, "")
        w.varint(6, UInt64(lastStreamIDReceived))
        w.message(7) { $0.varint(3, UInt64(heartbeatMillis)) }
        w.varint(8, UInt64(max(0, now / 1000)))
        return w.bytes
    }

    /// A refused login: `error` {code, message}.
    static func refusal(id: String, code: Int, message: String) -> [UInt8] {
        var w = ProtoWriter()
        w.string(1, id)
        w.message(3) { e in
            e.varint(1, UInt64(code))
            e.string(2, message)
        }
        return w.bytes
    }
}

/// What a client's packet says it has received: `last_stream_id_received` (the field number
/// differs by message), and an IQ's selective acknowledgement.
enum MCSUpstream {
    /// The packets the client says it received so far, if the message says.
    static func lastStreamIDReceived(_ tag: MCSTag, _ payload: [UInt8]) throws(ProtoReader.Malformed) -> Int? {
        let number: Int
        switch tag {
        case .heartbeatPing, .heartbeatAck: number = 2
        case .iqStanza: number = 10
        case .dataMessageStanza: number = 11
        default: return nil
        }
        var last: Int?
        for f in try ProtoReader.fields(payload[...]) where f.number == number {
            if let v = f.integer, v <= UInt64(Int32.max) { last = Int(v) }
        }
        return last
    }

    /// An `IqStanza`'s extension: a selective ack's persistent ids (extension 12), or a
    /// stream ack (13, no ids).
    static func acknowledged(_ payload: [UInt8]) throws(ProtoReader.Malformed) -> [String] {
        var ids: [String] = []
        for f in try ProtoReader.fields(payload[...]) where f.number == 7 {
            guard let ext = f.bytes else { continue }
            var extensionID: UInt64?
            var data: ArraySlice<UInt8> = []
            for g in try ProtoReader.fields(ext) {
                if g.number == 1 { extensionID = g.integer }
                if g.number == 2, let b = g.bytes { data = b }
            }
            guard extensionID == 12 else { continue }
            for h in try ProtoReader.fields(data) where h.number == 1 {
                if let s = h.string { ids.append(s) }
            }
        }
        return ids
    }

    /// `HeartbeatPing` and `HeartbeatAck` carry `last_stream_id_received` (2).
    static func heartbeat(lastStreamIDReceived: Int) -> [UInt8] {
        var w = ProtoWriter()
        w.varint(2, UInt64(lastStreamIDReceived))
        return w.bytes
    }
}

/// A `DataMessageStanza` (tag 8) carrying one push (docs/reference/fcm-clients.md §5.6).
struct MCSDataMessage {
    var id: String
    var from: String
    var category: String
    var appData: [(String, String)]
    var persistentID: String
    var lastStreamIDReceived: Int
    var ttl: Int
    var sentMillis: Int64
    var rawData: [UInt8]

    var bytes: [UInt8] {
        var w = ProtoWriter()
        w.string(2, id)
        w.string(3, from)
        w.string(5, category)
        for (key, value) in appData {
            w.message(7) { a in
                a.string(1, key)
                a.string(2, value)
            }
        }
        w.string(9, persistentID)
        w.varint(11, UInt64(lastStreamIDReceived))
        w.varint(17, UInt64(ttl))
        w.varint(18, UInt64(max(0, sentMillis)))
        if !rawData.isEmpty { w.bytes(21, rawData) }
        return w.bytes
    }
}
