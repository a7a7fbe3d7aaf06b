/// Reading a body as Google's front end does straight from its bytes. Most bodies are already
/// canonical (every name a field's own, every value one its type takes as it is): for those,
/// one pass builds the tree and checks it, where parsing then `read(_:as:)` walked it twice.
/// Any other body (a parse error, a lowerCamelCase name, a value to rewrite, a violation) is
/// read the long way, so its answer, errors and their order included, is the one
/// `read(_:as:)` gives.
extension ProtoJSON {
    /// `bytes` parsed, with canonical names and values, and the violations found: the same
    /// as `JSONParser.parse` then `read(_:as:)`.
    static func read(_ bytes: [UInt8], as type: ProtoType) throws(JSONParseError) -> (JSONValue, [ProtoViolation]) {
        if let value = canonical(bytes, as: type) { return (value, []) }
        return read(try JSONParser.parse(bytes), as: type)
    }

    /// `bytes` parsed, when they are valid JSON that `type` takes as it is; nil otherwise.
    static func canonical(_ bytes: [UInt8], as type: ProtoType) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buf -> JSONValue? in
            var p = JSONParser(buf)
            p.skipSpace()
            guard let value = try? p.canonical(type, depth: 0) else { return nil }
            p.skipSpace()
            return p.i == buf.count ? value : nil
        }
    }

    /// Whether `read(_:as:)` takes `value` as it is, with no violation.
    static func isCanonical(_ value: JSONValue, _ type: ProtoType) -> Bool {
        var reader = ProtoJSON()
        return reader.rewritten(value, type, at: { "" }) == nil && reader.violations.isEmpty
    }
}

extension JSONParser {
    /// The value at the reader, built as `value(depth:)` builds it, when `type` takes it as it
    /// is; nil as soon as something is not so (the reader is then left where it stopped).
    /// A message's members are matched to its fields on their bytes as they are read; any
    /// other value is built, then checked by `ProtoJSON`'s own rules.
    fileprivate mutating func canonical(_ type: ProtoType, depth: Int) throws(JSONParseError) -> JSONValue? {
        guard i < b.count else { throw fail() }
        let open = b[i]
        if case .message(_, let fields) = type, open == UInt8(ascii: "{") {
            return try message(fields, depth: depth + 1).map { .object($0) }
        }
        // A string field holding a string, the most common member, is taken as it is.
        if case .string = type, open == UInt8(ascii: "\"") { return .string(try string()) }
        let value = try value(depth: depth)
        return ProtoJSON.isCanonical(value, type) ? value : nil
    }

    /// The object at the reader when each member names one of `fields` as spelled and holds a
    /// value that field takes as it is.
    private mutating func message(_ fields: ProtoFields, depth: Int) throws(JSONParseError) -> JSONObject? {
        if depth > Self.maxDepth { return nil }
        i += 1
        skipSpace()
        var entries: [JSONObject.Entry] = []
        entries.reserveCapacity(8)
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return JSONObject(entries)
        }
        while true {
            guard let field = try memberName({ p throws(JSONParseError) in try p.field(of: fields) }),
                let value = try canonical(field.type, depth: depth)
            else { return nil }
            entries.append(JSONObject.Entry(field.name, value))
            if try objectEnds() { return JSONObject(entries) }
        }
    }

    /// The field of `fields` the member name at the reader (its opening quote) spells as it
    /// is, with the reader past the name; nil for another name. (A name with escapes or other
    /// than ASCII is not a field's name as spelled: it is read past, and nil.)
    private mutating func field(of fields: ProtoFields) throws(JSONParseError) -> (name: String, type: ProtoType)? {
        guard let name = plainString() else {
            _ = try string()
            return nil
        }
        return fields.field(spelled: name)
    }
}
