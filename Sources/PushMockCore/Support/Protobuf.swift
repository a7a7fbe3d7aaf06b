/// Protocol Buffers' binary wire format, by hand (docs/reference/fcm-clients.md §7): the dozen
/// small messages of GCM check-in and MCS need varints, fixed64 and length-delimited fields,
/// nothing generated. `ProtoReader` walks a message's fields one at a time, skipping the
/// groups and wire types nobody here uses; `ProtoWriter` appends fields.
public enum ProtoWire: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// One field as read: its number, and its value by wire type.
public struct ProtoField: Sendable {
    public enum Value: Sendable, Equatable {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed32(UInt32)
    }

    public let number: Int
    public let value: Value

    /// An int64/uint64/bool/enum field's value, or a fixed64's.
    public var integer: UInt64? {
        switch value {
        case .varint(let v), .fixed64(let v): v
        case .fixed32(let v): UInt64(v)
        case .bytes: nil
        }
    }

    public var bytes: ArraySlice<UInt8>? {
        if case .bytes(let b) = value { return b }
        return nil
    }

    /// A string field (UTF-8; a malformed one is refused as the message is).
    public var string: String? { bytes.flatMap { String(validating: $0, as: UTF8.self) } }
}

/// Reads a message's fields in order. A truncated field, a varint over ten bytes, a field
/// number of 0, or a group (proto2's deprecated wire types 3 and 4) is malformed: the whole
/// message is refused, as protobuf's parsers refuse it.
public struct ProtoReader {
    public struct Malformed: Error, Sendable {}

    private let bytes: ArraySlice<UInt8>
    private var at: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        at = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// Every field of the message, or `Malformed`.
    public static func fields(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> [ProtoField] {
        var reader = ProtoReader(bytes)
        var out: [ProtoField] = []
        while let f = try reader.next() { out.append(f) }
        return out
    }

    /// The next field, nil at the end.
    public mutating func next() throws(Malformed) -> ProtoField? {
        guard at < bytes.endIndex else { return nil }
        let key = try varint()
        let number = key >> 3
        guard number > 0, number <= 0x1FFF_FFFF, let wire = ProtoWire(rawValue: UInt8(key & 7)) else { throw Malformed() }
        switch wire {
        case .varint: return ProtoField(number: Int(number), value: .varint(try varint()))
        case .fixed64: return ProtoField(number: Int(number), value: .fixed64(try littleEndian(8)))
        case .fixed32: return ProtoField(number: Int(number), value: .fixed32(UInt32(try littleEndian(4))))
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(bytes.endIndex - at) else { throw Malformed() }
            let start = at
            at += Int(length)
            return ProtoField(number: Int(number), value: .bytes(bytes[start..<at]))
        case .startGroup, .endGroup: throw Malformed()
        }
    }

    /// A fixed-width little-endian integer of `width` bytes.
    private mutating func littleEndian(_ width: Int) throws(Malformed) -> UInt64 {
        guard bytes.endIndex - at >= width else { throw Malformed() }
        var v: UInt64 = 0
        for i in (0..<width).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
        at += width
        return v
    }

    private mutating func varint() throws(Malformed) -> UInt64 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.endIndex, shift < 70 {
            let b = bytes[at]
            at += 1
            v |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return v }
            shift += 7
        }
        throw Malformed()
    }
}

/// Appends fields to a message.
public struct ProtoWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func varint(_ number: Int, _ value: UInt64) {
        key(number, .varint)
        Self.appendVarint(value, to: &bytes)
    }

    public mutating func bool(_ number: Int, _ value: Bool) { varint(number, value ? 1 : 0) }

    public mutating func fixed64(_ number: Int, _ value: UInt64) {
        key(number, .fixed64)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    public mutating func bytes(_ number: Int, _ value: some Collection<UInt8>) {
        key(number, .lengthDelimited)
        Self.appendVarint(UInt64(value.count), to: &bytes)
        bytes.append(contentsOf: value)
    }

    public mutating func string(_ number: Int, _ value: String) { bytes(number, Array(value.utf8)) }

    /// An embedded message.
    public mutating func message(_ number: Int, _ body: (inout ProtoWriter) -> Void) {
        var inner = ProtoWriter()
        body(&inner)
        bytes(number, inner.bytes)
    }

    private mutating func key(_ number: Int, _ wire: ProtoWire) {
        Self.appendVarint(UInt64(number) << 3 | UInt64(wire.rawValue), to: &bytes)
    }

    public static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
