import Glibc
import PushMockCore

/// A request's head as HTTP/2 delivers it: the pseudo-headers and the regular fields, in
/// arrival order (repeats kept: the gateway decides what they mean), with `:authority` standing in
/// for a missing `host`.
struct RequestHead {
    var method = ""
    var path = ""
    var headers: [(name: String, value: String)] = []

    init() {}

    init(_ fields: [(name: String, value: String)]) {
        var authority: String?
        headers.reserveCapacity(fields.count + 1)
        for field in fields {
            if field.name.utf8.first == UInt8(ascii: ":") {
                switch field.name {
                case ":method": method = field.value
                case ":path": path = field.value
                case ":authority": authority = field.value
                default: break
                }
            } else {
                headers.append(field)
            }
        }
        if let authority, !headers.contains(where: { $0.name == "host" }) { headers.append(("host", authority)) }
    }
}

/// The header block of a connection's last request. A client sends the same fields on every
/// stream (HPACK indexes them), so while a block's bytes match the last one's field for field
/// nothing is decoded, and a block that matched throughout takes the last request's head as
/// it is (its Strings and array shared, not copied). Header blocks arrive one at a time
/// (HTTP/2 allows no interleaving), so one cache serves the connection.
struct HeaderBlockCache {
    /// The last block's fields in order, pseudo-headers included, and its head.
    private var fields: [(name: String, value: String)] = []
    private var head = RequestHead()
    /// The same fields' bytes back to back, and where each name and value ends: incoming
    /// fields are compared with these, so no String is read out of `fields` per field.
    private var bytes: [UInt8] = []
    private var ends: [(name: Int, value: Int)] = []
    /// Blocks longer than this are not kept.
    static let maxFields = 64

    /// Field `position` of `stream`'s block.
    mutating func receive(
        _ stream: HTTP2Stream, at position: Int, _ name: UnsafeBufferPointer<UInt8>,
        _ value: UnsafeBufferPointer<UInt8>
    ) {
        let known = matches(position, name, value)
        if stream.ownFields == nil {
            if known { return }
            stream.ownFields = Array(fields[..<position])
        }
        stream.ownFields!.append(
            known
                ? fields[position]
                : (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// Whether field `position` of the last block had these bytes.
    private func matches(_ position: Int, _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard position < ends.count else { return false }
        let start = position == 0 ? 0 : ends[position - 1].value
        let end = ends[position]
        guard end.name - start == name.count, end.value - end.name == value.count else { return false }
        return bytes.withUnsafeBufferPointer { b in
            Self.same(b, at: start, name) && Self.same(b, at: end.name, value)
        }
    }

    private static func same(_ b: UnsafeBufferPointer<UInt8>, at offset: Int, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = other.baseAddress, other.count > 0 else { return true }
        return sameBytes(b.baseAddress! + offset, p, count: other.count)
    }

    /// `stream`'s block is complete after `count` fields: it gets its head, the cached one
    /// when every field matched; otherwise its own, which the cache keeps for the next.
    mutating func finish(_ stream: HTTP2Stream, count: Int) {
        if stream.ownFields == nil, count == fields.count {
            stream.head = head
            return
        }
        let own = stream.ownFields ?? Array(fields[..<count])
        stream.ownFields = nil
        stream.head = RequestHead(own)
        if own.count <= Self.maxFields {
            fields = own
            head = stream.head
            bytes.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            for field in own {
                bytes += field.name.utf8
                let nameEnd = bytes.count
                bytes += field.value.utf8
                ends.append((nameEnd, bytes.count))
            }
        }
    }
}
