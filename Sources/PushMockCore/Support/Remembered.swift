/// The last successful lookup, remembered: a client repeats its credentials and paths on
/// every request, so asking again for the same key skips the work. The owner clears it
/// whenever what it was looked up in changes.
struct Remembered<Key: Equatable, Value> {
    private var last: (key: Key, value: Value)?

    /// The value for `key`: the remembered one, or `lookup`'s, which is remembered when found.
    mutating func value(for key: Key, _ lookup: () -> Value?) -> Value? {
        if let last, last.key == key { return last.value }
        guard let value = lookup() else { return nil }
        last = (key, value)
        return value
    }

    mutating func clear() { last = nil }
}
