/// A hash table from text keys to objects that does not keep the keys: each slot holds the
/// key's hash and the object, and the object itself says whether it has the key (a device
/// its token, its FID, its id). Made for the indexes of a million devices (docs/PERFORMANCE.md,
/// "Devices that cost little"): a `Dictionary<String, Device>` keeps each key (16 bytes) and,
/// having no stored hashes, reads the key of every entry a probe passes (another cache miss
/// each); here a probe compares 8-byte hashes held in the slot and asks the object only when
/// they are equal. Keys are hashed with the standard library's seeded `Hasher`, so a client
/// cannot choose keys that collide. Open addressing, linear probing, at most 3/4 full
/// (tombstones included). Loop thread only.
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

    private static func hash(_ key: String) -> UInt64 {
        var h = Hasher()
        var key = key
        key.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        return max(2, UInt64(UInt(bitPattern: h.finalize())))
    }

    /// The object that has `key`, as `has` tells.
    func find(_ key: String, has: (Value) -> Bool) -> Value? {
        let h = Self.hash(key)
        // On the send path (a token's device): read in place, no bounds checks per probe.
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h) & mask
            while slots[i].hash != 0 {
                if slots[i].hash == h, let v = slots[i].value, has(v) { return v }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    /// Puts `value` under `key`, in place of an object that has the key (as `has` tells) or of
    /// `value` itself already there: one probe of the table.
    mutating func insert(_ key: String, _ value: Value, has: (Value) -> Bool) {
        if (used + 1) * 4 > slots.count * 3 { rebuild(capacity: 2 * (count + 1)) }
        let h = Self.hash(key)
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        var free: Int?
        while slots[i].hash != 0 {
            if slots[i].hash == h, let v = slots[i].value, v === value || has(v) {
                slots[i].value = value
                return
            }
            if slots[i].hash == 1, free == nil { free = i }
            i = (i + 1) & mask
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
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        while slots[i].hash != 0 {
            if slots[i].hash == h, slots[i].value === value {
                slots[i] = Slot(hash: 1, value: nil)
                count -= 1
                return true
            }
            i = (i + 1) & mask
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
        var size = 8
        while size * 3 < max(capacity, count) * 4 { size *= 2 }
        let old = slots
        slots = Array(repeating: Slot(), count: size)
        used = 0
        let mask = size - 1
        for s in old where s.hash > 1 {
            var i = Int(truncatingIfNeeded: s.hash) & mask
            while slots[i].hash != 0 { i = (i + 1) & mask }
            slots[i] = s
            used += 1
        }
    }
}
