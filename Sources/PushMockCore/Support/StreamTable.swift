/// Values by stream id, for a connection's open streams (HTTP/2's). nghttp2 names a stream in
/// every callback, so each request looks its stream up several times, where a `Dictionary`
/// would hash the id each time. A client's stream ids are odd and rising, so half the id picks
/// a slot directly and the open streams (a window of recent ids) each have their own; an id
/// whose slot is taken (a long-lived stream a lap behind, or ids chosen to collide) goes to a
/// dictionary beside the slots. The slots double once half are open streams. Inlinable, so a
/// session's table is compiled for its own stream type rather than through generic calls.
public struct StreamTable<Value> {
    /// Each slot's stream id (0 when empty: stream ids start at 1) beside its value.
    @usableFromInline var ids: [Int32]
    @usableFromInline var values: [Value?]
    /// Streams whose slot was taken when they opened.
    @usableFromInline var overflow: [Int32: Value] = [:]
    @usableFromInline var stored = 0

    @inlinable public init() { self.init(size: 16) }

    @inlinable init(size: Int) {
        ids = Array(repeating: 0, count: size)
        values = Array(repeating: nil, count: size)
    }

    @inlinable public var count: Int { stored }
    @inlinable public var isEmpty: Bool { stored == 0 }

    /// The values, in no particular order; a copy, so the table may change meanwhile.
    @inlinable public var all: [Value] { values.compactMap { $0 } + overflow.values }

    /// Whether a value satisfies `test`.
    @inlinable public func contains(where test: (Value) -> Bool) -> Bool {
        values.contains { $0.map(test) ?? false } || overflow.values.contains(where: test)
    }

    @inlinable func slot(_ id: Int32) -> Int { Int(UInt32(bitPattern: id) >> 1) & (ids.count - 1) }

    @inlinable public subscript(id: Int32) -> Value? {
        let i = slot(id)
        if ids[i] == id { return values[i] }
        return overflow.isEmpty ? nil : overflow[id]
    }

    /// Adds `value` under `id` (at least 1), which is not in the table: a stream id is never
    /// reused on a connection.
    @inlinable public mutating func insert(_ value: Value, id: Int32) {
        precondition(id > 0, "stream ids start at 1")
        if (stored + 1) * 2 > ids.count { grow() }
        place(value, id: id)
        stored += 1
    }

    @inlinable mutating func place(_ value: Value, id: Int32) {
        let i = slot(id)
        if ids[i] == 0 {
            ids[i] = id
            values[i] = value
        } else {
            overflow[id] = value
        }
    }

    /// Takes out the value under `id`, if there is one.
    @inlinable public mutating func remove(_ id: Int32) -> Value? {
        let i = slot(id)
        if ids[i] == id {
            let value = values[i]
            ids[i] = 0
            values[i] = nil
            stored -= 1
            return value
        }
        guard !overflow.isEmpty, let value = overflow.removeValue(forKey: id) else { return nil }
        stored -= 1
        return value
    }

    /// Twice the slots, every stream placed again (those in the dictionary too, as their
    /// slots may be free now).
    @inlinable mutating func grow() {
        var larger = StreamTable(size: ids.count * 2)
        for i in ids.indices where ids[i] != 0 { larger.place(values[i]!, id: ids[i]) }
        for (id, value) in overflow { larger.place(value, id: id) }
        larger.stored = stored
        self = larger
    }
}
