/// A parsed JSON document that keeps object keys in the order they arrived and numbers as
/// written, so a request can be shown exactly as received and 64-bit integers survive.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name FCM uses in its 400 texts.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { n } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    @inline(__always)
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// A JSON number as written (`text`) with its value as a Double.
public struct JSONNumber: Equatable, Sendable {
    public let text: String
    public let double: Double

    public init(text: String, double: Double) {
        self.text = text
        self.double = double
    }
    public init(_ int: Int) {
        self.text = String(int)
        self.double = Double(int)
    }

    /// The value as an integer when the number is whole and fits in Int.
    public var int: Int? {
        if let i = Int(text) { return i }
        guard double.rounded() == double, abs(double) < 9.0e18 else { return nil }
        return Int(double)
    }
}

/// An ordered JSON object. Lookups return the last value for a repeated key.
public struct JSONObject: Equatable, Sendable {
    /// One member. (A struct, not a `(key:, value:)` tuple: an array of tuples is copied and
    /// freed element by element through the run time's generic tuple code.)
    public struct Entry: Sendable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    /// An object of these members, in order.
    public init(_ pairs: [(key: String, value: JSONValue)]) { entries = pairs.map { Entry($0.key, $0.value) } }

    public mutating func append(_ key: String, _ value: JSONValue) { entries.append(Entry(key, value)) }

    /// Sets `key` to `value`: a member of that name (`sameSpelling`) is taken out, and the new one
    /// goes last.
    public mutating func put(_ key: String, _ value: JSONValue) {
        entries.removeAll { $0.key.sameSpelling(as: key) }
        entries.append(Entry(key, value))
    }

    /// The last member called `key` (`sameSpelling`). By index, so that no member is copied (and
    /// retained) to be looked at.
    @inline(__always)
    public subscript(key: String) -> JSONValue? {
        var i = entries.count
        while i > 0 {
            i -= 1
            if entries[i].key.sameSpelling(as: key) { return entries[i].value }
        }
        return nil
    }

    /// The member at a path of keys, e.g. `m.value(at: "apns", "headers")`.
    public func value(at keys: String...) -> JSONValue? {
        var object = self
        for (i, key) in keys.enumerated() {
            guard let v = object[key] else { return nil }
            if i == keys.count - 1 { return v }
            guard let next = v.objectValue else { return nil }
            object = next
        }
        return nil
    }

    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
