/// A field's type as Google's front end reads it from JSON, by the proto3 JSON mapping
/// (docs/reference/google-json.md §J.1). Messages name their fields by proto (snake_case)
/// name; the front end also takes lowerCamelCase.
indirect enum ProtoType: Sendable {
    case string, bool, int32
    /// `float` and `double`.
    case float
    case duration, timestamp
    /// An enum: its full name and its value names in number order (a number picks one by
    /// position), with other spellings a service takes (`aliases`: FCM's lower-case priorities).
    case enumeration(String, [String], aliases: [String] = [])
    /// A message: its full name and its fields.
    case message(String, ProtoFields)
    /// `map<string, string>`: its entry type's full name.
    case stringMap(String)
    /// `google.protobuf.Struct`: any JSON object.
    case structValue
    case repeated(ProtoType)

    /// How an error names the type: `TYPE_STRING` for scalars, a type URL for the rest.
    var errorName: String {
        switch self {
        case .string: "TYPE_STRING"
        case .bool: "TYPE_BOOL"
        case .int32: "TYPE_INT32"
        case .float: "TYPE_FLOAT"
        case .duration: "type.googleapis.com/google.protobuf.Duration"
        case .timestamp: "type.googleapis.com/google.protobuf.Timestamp"
        case .enumeration(let name, _, _), .message(let name, _), .stringMap(let name): "type.googleapis.com/" + name
        case .structValue: "type.googleapis.com/google.protobuf.Struct"
        case .repeated(let element): element.errorName
        }
    }

    var isRepeated: Bool {
        switch self {
        case .repeated, .stringMap: true
        default: false
        }
    }

    /// A field an object cannot start: a string, number, bool or enum.
    var isPrimitive: Bool {
        switch self {
        case .string, .bool, .int32, .float, .enumeration: true
        default: false
        }
    }
}

/// A message's fields by their proto (snake_case) names, written as a dictionary literal in
/// declaration order. A name is found on its bytes, among the names of its length
/// (`MemberNames`): every member of every HTTP v1 send is looked up here. (A class: a
/// message's fields, taken out of its type for each object read, are then one reference to
/// retain and release, not each of their arrays.)
final class ProtoFields: ExpressibleByDictionaryLiteral, Sendable {
    private let types: [ProtoType]
    private let keys: [String]
    private let names: MemberNames

    init(dictionaryLiteral fields: (String, ProtoType)...) {
        types = fields.map(\.1)
        keys = fields.map(\.0)
        names = MemberNames(keys)
    }

    /// The type of the field called `name`, nil when the message has none.
    func type(named name: String) -> ProtoType? {
        name.withBytes { names.index(of: $0) }.map { types[$0] }
    }

    /// The field whose name is these bytes, with its name as a String (a member read from
    /// bytes is keyed by it, not by a String made of them); nil when the message has none.
    func field(spelled bytes: UnsafeBufferPointer<UInt8>) -> (name: String, type: ProtoType)? {
        names.index(of: bytes).map { (keys[$0], types[$0]) }
    }
}

/// One problem with a request body, as `google.rpc.BadRequest` lists it: `field` is the path
/// (empty at the root, where the violation has no `field`).
struct ProtoViolation: Error, Equatable {
    let field: String
    let description: String
}

/// Reads a JSON body as Google's front end does (docs/reference/google-json.md): every unknown
/// name and every value its type does not take is a violation, all of them listed in document
/// order; a value the mapping takes in another form (an enum by number, an int32 as a string,
/// a lowerCamelCase name) comes out in the canonical one.
struct ProtoJSON {
    /// The most violations one answer lists: a hostile body with 60,000 unknown names gets
    /// the first hundred, not a 10 MB error (a bound of pushmock's, §H).
    static let maxViolations = 100

    private(set) var violations: [ProtoViolation] = []

    /// The value with canonical names and values, and the violations found.
    static func read(_ value: JSONValue, as type: ProtoType) -> (JSONValue, [ProtoViolation]) {
        var reader = ProtoJSON()
        let out = reader.rewritten(value, type, at: { "" }) ?? value
        return (out, reader.violations)
    }

    /// The value rewritten, or nil when it is already canonical (most requests: the tree is
    /// then not copied). Paths are only spelled out for a violation. (Internal: the byte
    /// reader, ProtoJSON+Bytes.swift, checks values by it.)
    mutating func rewritten(_ value: JSONValue, _ type: ProtoType, at path: () -> String) -> JSONValue? {
        // null is every field's default value.
        if case .null = value { return nil }
        func invalid() {
            let p = path()
            violations.append(
                ProtoViolation(
                    field: p, description: "Invalid value at '\(p)' (\(type.errorName)), \(JSONWriter.quotedJSON(value))"))
        }
        switch type {
        case .string: if value.stringValue == nil { invalid() }
        case .bool: if value.boolValue == nil { invalid() }
        case .float: if !Self.isFloat(value) { invalid() }
        case .duration: if value.stringValue.flatMap(Duration.seconds) == nil { invalid() }
        case .timestamp: if !(value.stringValue.map(ProtoTimestamp.isValid) ?? false) { invalid() }
        case .structValue: if value.objectValue == nil { invalid() }
        case .int32:
            if case .string(let s) = value {
                guard let n = Int32(s) else {
                    invalid()
                    return nil
                }
                return .number(JSONNumber(Int(n)))
            }
            guard let n = value.numberValue?.int, Int32(exactly: n) != nil else {
                invalid()
                return nil
            }
        case .enumeration(_, let names, let aliases):
            if let n = value.numberValue?.int, names.indices.contains(n) { return .string(names[n]) }
            guard let s = value.stringValue, names.contains(s) || aliases.contains(s) else {
                invalid()
                return nil
            }
        case .stringMap:
            guard let object = value.objectValue else {
                invalid()
                return nil
            }
            for (i, entry) in object.entries.enumerated() where entry.value.stringValue == nil {
                if violations.count >= Self.maxViolations { break }
                let p = "\(path())[\(i)].value"
                violations.append(
                    ProtoViolation(
                        field: p, description: "Invalid value at '\(p)' (TYPE_STRING), \(JSONWriter.quotedJSON(entry.value))"))
            }
        case .repeated(let element):
            guard let items = value.arrayValue else {
                invalid()
                return nil
            }
            var out: [JSONValue]?
            for (i, item) in items.enumerated() {
                if violations.count >= Self.maxViolations { return nil }
                let new = rewritten(item, element, at: { "\(path())[\(i)]" })
                if new != nil, out == nil { out = Array(items[..<i]) }
                out?.append(new ?? item)
            }
            return out.map { .array($0) }
        case .message(_, let fields):
            guard let object = value.objectValue else {
                invalid()
                return nil
            }
            return rewritten(object, fields, at: path)
        }
        return nil
    }

    /// A message's members, by name: each known, of a shape its field takes, and canonical.
    private mutating func rewritten(
        _ object: JSONObject, _ fields: ProtoFields, at path: () -> String
    ) -> JSONValue? {
        var out: [JSONObject.Entry]?
        for (i, entry) in object.entries.enumerated() {
            let (key, item) = (entry.key, entry.value)
            if violations.count >= Self.maxViolations { return nil }
            // Most names come as the field's own (snake_case): looked up as sent, then in
            // snake_case when they hold a capital.
            var name = key
            var found = fields.type(named: name)
            if found == nil, key.hasASCIIUppercase {
                name = Self.snakeCase(key)
                found = fields.type(named: name)
            }
            guard let fieldType = found else {
                nameViolation(key, "Cannot find field.", at: path())
                continue
            }
            // A list where one value belongs, or an object where a string, number or enum does,
            // is refused by the field's name, before its value is read.
            if case .array = item, !fieldType.isRepeated {
                nameViolation(key, "Proto field is not repeating, cannot start list.", at: path())
                continue
            }
            if case .object = item, fieldType.isPrimitive {
                let p = path()
                violations.append(
                    ProtoViolation(
                        field: p, description: "Invalid value at '\(p)' (\(name)), Starting an object on a scalar field"))
                continue
            }
            let new = rewritten(
                item, fieldType,
                at: {
                    let p = path()
                    return p.isEmpty ? name : "\(p).\(name)"
                })
            if new != nil || name != key, out == nil { out = Array(object.entries[..<i]) }
            out?.append(JSONObject.Entry(name, new ?? item))
        }
        return out.map { .object(JSONObject($0)) }
    }

    private mutating func nameViolation(_ key: String, _ why: String, at path: String) {
        let at = path.isEmpty ? "" : " at '\(path)'"
        violations.append(
            ProtoViolation(field: path, description: "Invalid JSON payload received. Unknown name \"\(key)\"\(at): \(why)"))
    }

    /// A number, or one of the strings the mapping takes for a float: a decimal number,
    /// `NaN`, `Infinity`, `-Infinity`.
    private static func isFloat(_ value: JSONValue) -> Bool {
        switch value {
        case .number: true
        case .string(let s): ["NaN", "Infinity", "-Infinity"].contains(s) || Double(s)?.isFinite == true
        default: false
        }
    }

    /// `fcmOptions` → `fcm_options`; snake_case stays as it is.
    static func snakeCase(_ s: String) -> String {
        guard s.hasASCIIUppercase else { return s }
        var out = ""
        for c in s {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// `google.protobuf.Duration` in JSON: `"3.5s"`, an optional `-`, at most nine fractional
/// digits, within ±315,576,000,000 seconds (§J.1).
enum Duration {
    static let maxSeconds = 315_576_000_000.0

    static func seconds(_ s: String) -> Double? {
        guard s.hasSuffix("s") else { return nil }
        let number = s.dropLast()
        let unsigned = number.hasPrefix("-") ? number.dropFirst() : number
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit),
            parts.count == 1 || (1...9).contains(parts[1].count) && parts[1].allSatisfy(\.isASCIIDigit),
            let value = Double(number), abs(value) <= maxSeconds
        else { return nil }
        return value
    }
}

/// `google.protobuf.Timestamp` in JSON: RFC 3339, `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or
/// an offset, years 0001 to 9999, at most nine fractional digits (§J.1).
enum ProtoTimestamp {
    static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= b.count else { return nil }
            var n = 0
            for c in b[from..<from + count] {
                guard (0x30...0x39).contains(c) else { return nil }
                n = n * 10 + Int(c - 0x30)
            }
            return n
        }
        func at(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
        guard let year = digits(0, 4), at(4, "-"), let month = digits(5, 2), at(7, "-"), let day = digits(8, 2), at(10, "T"),
            let hour = digits(11, 2), at(13, ":"), let minute = digits(14, 2), at(16, ":"), let second = digits(17, 2),
            year >= 1, (1...12).contains(month), (1...daysIn(month, year)).contains(day), hour < 24, minute < 60, second < 60
        else { return false }
        var i = 19
        if at(i, ".") {
            var n = 0
            while i + 1 < b.count, (0x30...0x39).contains(b[i + 1]) {
                i += 1
                n += 1
            }
            guard (1...9).contains(n) else { return false }
            i += 1
        }
        if at(i, "Z") { return i == b.count - 1 }
        guard at(i, "+") || at(i, "-"), i + 6 == b.count, let oh = digits(i + 1, 2), at(i + 3, ":"), let om = digits(i + 4, 2)
        else { return false }
        return oh < 24 && om < 60
    }

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
