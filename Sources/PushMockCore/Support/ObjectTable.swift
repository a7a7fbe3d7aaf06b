/// A hash table from text keys to objects that does not keep the keys: each slot holds the
/// key's hash and the object, and the object itself says whether it has the key (a device
/// its token, its FID, its id). Made for the indexes of a million devices (docs/PERFORMANCE.md,
/// "Devices that cost little"): a `Dictionary<String, Device>` keeps each key (16 bytes) and,
/// having no stored hashes, reads the key of every entry a probe passes (another cache miss
/// each); here a probe compares 8-byte hashes held in the slot and asks the object only when
/// they are equal. Keys are hashed with the standard library's seeded `Hasher`, so a client
/// cannot choose keys that collide. Open addressing, linear probing, at most 3/4 full
/// (tombstones included). The table is sized to what it must hold, not to a power of two
/// (a hash's place is its high bits scaled to the size): a million devices fill 4/3 million
/// slots, not 2^21 (docs/PERFORMANCE.md).
/// Loop thread only.
struct ObjectTable<Value: AnyObject> {
    private struct Slot {
        /// 0: never used; 1: removed (a tombstone); else the key's hash, made at least 2.
        var hash: UInt64 = 0
        var value: Value?
    }

    private var slots: [Slot]
    private var used = 0
    private(set) var count = 0

    init() { slots = Array(repeating: Slot(), count: 8) }

    private static func hash(_ key: String) -> UInt64 { key.withBytes(hash) }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = Hasher()
        h.combine(bytes: UnsafeRawBufferPointer(bytes))
        return max(2, UInt64(UInt(bitPattern: h.finalize())))
    }

    /// The object that has `key`, as `has` tells.
    func find(_ key: String, has: (Value) -> Bool) -> Value? { find(hash: Self.hash(key), has: has) }

    /// The object that has the key these bytes spell (a part of a longer text, not copied).
    func find(bytes: UnsafeBufferPointer<UInt8>, has: (Value) -> Bool) -> Value? { find(hash: Self.hash(bytes), has: has) }

    private func find(hash h: UInt64, has: (Value) -> Bool) -> Value? {
        // On the send path (a token's device): read in place, no bounds checks per probe.
        return slots.withUnsafeBufferPointer { slots in
            var i = Self.place(h, in: slots.count)
            while slots[i].hash != 0 {
                if slots[i].hash == h, let v = slots[i].value, has(v) { return v }
                i = Self.next(i, in: slots.count)
            }
            return nil
        }
    }

    /// Puts `value` under `key`, in place of an object that has the key (as `has` tells) or of
    /// `value` itself already there: one probe of the table.
    mutating func insert(_ key: String, _ value: Value, has: (Value) -> Bool) {
        insert(hash: Self.hash(key), value, has: has)
    }

    /// As `insert(_:_:has:)`, under the key these bytes spell (a part of a longer text, not
    /// copied).
    mutating func insert(bytes: UnsafeBufferPointer<UInt8>, _ value: Value, has: (Value) -> Bool) {
        insert(hash: Self.hash(bytes), value, has: has)
    }

    private mutating func insert(hash h: UInt64, _ value: Value, has: (Value) -> Bool) {
        if (used + 1) * 4 > slots.count * 3 { rebuild(capacity: 2 * (count + 1)) }
        var i = Self.place(h, in: slots.count)
        var free: Int?
        while slots[i].hash != 0 {
            if slots[i].hash == h, let v = slots[i].value, v === value || has(v) {
                slots[i].value = value
                return
            }
            if slots[i].hash == 1, free == nil { free = i }
            i = Self.next(i, in: slots.count)
        }
        if free == nil { used += 1 }
        slots[free ?? i] = Slot(hash: h, value: value)
        count += 1
    }

    /// Takes `value` out from under `key` (found by identity: the object may no longer have
    /// the key). False when it was not there.
    @discardableResult
    mutating func remove(_ key: String, _ value: Value) -> Bool {
        let h = Self.hash(key)
        var i = Self.place(h, in: slots.count)
        while slots[i].hash != 0 {
            if slots[i].hash == h, slots[i].value === value {
                slots[i] = Slot(hash: 1, value: nil)
                count -= 1
                return true
            }
            i = Self.next(i, in: slots.count)
        }
        return false
    }

    /// Room for `n` objects in all without growing.
    mutating func reserveCapacity(_ n: Int) {
        if n * 4 > slots.count * 3 { rebuild(capacity: n) }
    }

    /// A table with room for `capacity` objects, without tombstones; the stored hashes place
    /// each object again (no key is read).
    private mutating func rebuild(capacity: Int) {
        // The fewest slots that hold `capacity` at 3/4 full, and one more, so that one free
        // slot always ends a probe.
        let size = max(8, (max(capacity, count) * 4 + 2) / 3 + 1)
        let old = slots
        slots = Array(repeating: Slot(), count: size)
        used = 0
        for s in old where s.hash > 1 {
            var i = Self.place(s.hash, in: size)
            while slots[i].hash != 0 { i = Self.next(i, in: size) }
            slots[i] = s
            used += 1
        }
    }

    /// Where a probe for hash `h` starts in `size` slots: the hash's high bits scaled to the
    /// size (a multiplication, where a power-of-two size would take the low bits).
    private static func place(_ h: UInt64, in size: Int) -> Int {
        Int(truncatingIfNeeded: h.multipliedFullWidth(by: UInt64(size)).high)
    }

    private static func next(_ i: Int, in size: Int) -> Int { i + 1 == size ? 0 : i + 1 }
}
