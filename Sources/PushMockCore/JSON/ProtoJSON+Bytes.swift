/// Reading a body as Google's front end does straight from its bytes. Most bodies are already
/// canonical (every name a field's own, every value one its type takes as it is): for those,
/// one pass builds the tree and checks it, where parsing then `read(_:as:)` walked it twice.
/// Any other body (a parse error, a lowerCamelCase name, a value to rewrite, a violation) is
/// read the long way, so its answer, errors and their order included, is the one
/// `read(_:as:)` gives.
extension ProtoJSON {
    /// `bytes` parsed, with canonical names and values, and the violations found: the same
    /// as `JSONParser.parse` then `read(_:as:)`.
    /// With `unbuilt`, the members it names are left out of the tree when the bytes are
    /// canonical, and where they lie is kept in it; otherwise (the long way) none is left out.
    static func read(
        _ bytes: [UInt8], as type: ProtoType, leaving unbuilt: inout Unbuilt?
    ) throws(JSONParseError) -> (JSONValue, [ProtoViolation]) {
        if let value = canonical(bytes, as: type, leaving: &unbuilt) { return (value, []) }
        unbuilt?.clear()
        return read(try JSONParser.parse(bytes), as: type)
    }

    static func read(_ bytes: [UInt8], as type: ProtoType) throws(JSONParseError) -> (JSONValue, [ProtoViolation]) {
        var none: Unbuilt?
        return try read(bytes, as: type, leaving: &none)
    }

    /// `bytes` parsed, when they are valid JSON that `type` takes as it is; nil otherwise.
    static func canonical(_ bytes: [UInt8], as type: ProtoType) -> JSONValue? {
        var none: Unbuilt?
        return canonical(bytes, as: type, leaving: &none)
    }

    static func canonical(_ bytes: [UInt8], as type: ProtoType, leaving unbuilt: inout Unbuilt?) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buf -> JSONValue? in
            var p = JSONParser(buf)
            p.skipSpace()
            guard let value = try? p.canonical(type, depth: 0, leaving: &unbuilt) else { return nil }
            p.skipSpace()
            return p.i == buf.count ? value : nil
        }
    }

    /// Members of one message type that the byte reader checks but does not build: flat
    /// objects (a map of strings, or a message of string fields) whose names and values need
    /// no decoding. Each is weighed as it is checked, and where it lies is kept, for the caller
    /// to build it from its bytes if it needs it. (HTTP v1's `data` and `notification`: a send
    /// only weighs them.) A member that is not so, or a body read the long way, is built as
    /// any other.
    struct Unbuilt: Sendable {
        /// One member left unbuilt: where its object lies in the bytes, the bytes of its names
        /// and values, and where its first name that `marks` is lies.
        struct Part: Sendable {
            let span: Range<Int>
            let pairBytes: Int
            let marked: Range<Int>?
        }

        /// The message type's fields, compared by identity.
        let fields: ProtoFields
        let names: [String]
        /// A name to find among the members' (HTTP v1: a data key FCM keeps for itself).
        let marks: @Sendable (UnsafeBufferPointer<UInt8>) -> Bool
        /// Each named member, left unbuilt (the last one, if repeated). Two at most, held in
        /// place: a send starts from a copy of one static value, and its first write to an
        /// array shared with that value would copy the array, an allocation every send.
        private var parts: (Part?, Part?) = (nil, nil)

        init(_ names: [String], of fields: ProtoFields, marking marks: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Bool) {
            precondition(names.count <= 2, "two members at most are left unbuilt")
            self.fields = fields
            self.names = names
            self.marks = marks
        }

        /// The member `names[index]` names, if it was left unbuilt.
        func part(_ index: Int) -> Part? { index == 0 ? parts.0 : parts.1 }

        fileprivate mutating func set(_ index: Int, _ part: Part) {
            if index == 0 { parts.0 = part } else { parts.1 = part }
        }

        mutating func clear() { parts = (nil, nil) }
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
    fileprivate mutating func canonical(
        _ type: ProtoType, depth: Int, leaving unbuilt: inout ProtoJSON.Unbuilt?
    ) throws(JSONParseError) -> JSONValue? {
        guard i < b.count else { throw fail() }
        let open = b[i]
        if case .message(_, let fields) = type, open == UInt8(ascii: "{") {
            return try message(fields, depth: depth + 1, leaving: &unbuilt).map { .object($0) }
        }
        // A string field holding a string, the most common member, is taken as it is.
        if case .string = type, open == UInt8(ascii: "\"") { return .string(try string()) }
        let value = try value(depth: depth)
        return ProtoJSON.isCanonical(value, type) ? value : nil
    }

    /// The object at the reader when each member names one of `fields` as spelled and holds a
    /// value that field takes as it is.
    private mutating func message(
        _ fields: ProtoFields, depth: Int, leaving unbuilt: inout ProtoJSON.Unbuilt?
    ) throws(JSONParseError) -> JSONObject? {
        if depth > Self.maxDepth { return nil }
        let leaves = unbuilt?.fields === fields
        // A message read again (a repeated member) is read whole again: the last one counts.
        if leaves { unbuilt!.clear() }
        i += 1
        skipSpace()
        var entries: [JSONObject.Entry] = []
        entries.reserveCapacity(8)
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return JSONObject(entries)
        }
        while true {
            guard let field = try memberName({ p throws(JSONParseError) in try p.field(of: fields) }) else { return nil }
            if leaves, let k = unbuilt!.names.firstIndex(of: field.name) {
                // Anything but a flat object (a null among them) is read the long way.
                guard i < b.count, b[i] == UInt8(ascii: "{"), let part = try flatStrings(field.type, marking: unbuilt!.marks)
                else { return nil }
                unbuilt!.set(k, part)
            } else {
                guard let value = try canonical(field.type, depth: depth, leaving: &unbuilt) else { return nil }
                entries.append(JSONObject.Entry(field.name, value))
            }
            if try objectEnds() { return JSONObject(entries) }
        }
    }

    /// Passes the object at the reader when `type` takes it as it is and it is flat: a map of
    /// strings, or a message whose members are its string fields as spelled, each name and
    /// value needing no decoding; it is weighed on the way. Nil as soon as it is not so.
    private mutating func flatStrings(
        _ type: ProtoType, marking marks: (UnsafeBufferPointer<UInt8>) -> Bool
    ) throws(JSONParseError) -> ProtoJSON.Unbuilt.Part? {
        let fields: ProtoFields?
        switch type {
        case .stringMap: fields = nil
        case .message(_, let f): fields = f
        default: return nil
        }
        let start = i
        var pairBytes = 0
        var marked: Range<Int>?
        i += 1
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return ProtoJSON.Unbuilt.Part(span: start..<i, pairBytes: 0, marked: nil)
        }
        while true {
            guard let name = try memberName({ p throws(JSONParseError) in p.plainString() }) else { return nil }
            if let fields {
                guard case .string? = fields.field(spelled: name)?.type else { return nil }
            }
            guard i < b.count, b[i] == UInt8(ascii: "\""), let value = plainString() else { return nil }
            pairBytes += name.count + value.count
            if marked == nil, marks(name) {
                let at = name.baseAddress! - b.baseAddress!
                marked = at..<(at + name.count)
            }
            if try objectEnds() { return ProtoJSON.Unbuilt.Part(span: start..<i, pairBytes: pairBytes, marked: marked) }
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
