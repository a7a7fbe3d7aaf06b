/// A member's name for `JSONWriter`. Written in the source (`w.member("success", 1)`) it is a
/// `StaticString`, whose bytes are copied as they are: names pushmock writes need no escape,
/// which a debug build checks when one is made. A name known only when running (a data
/// key, a header, a topic) is `JSONKey(name)` and is escaped as any string is. (`JSONKey` of a
/// literal, `JSONKey("x")`, is the literal's own kind, as Swift reads `T("x")` for a type a
/// literal can make.)
public struct JSONKey: ExpressibleByStringLiteral, Sendable {
    enum Storage: Sendable {
        case literal(StaticString)
        case text(String)
    }
    let storage: Storage

    public init(stringLiteral name: StaticString) {
        assert(!JSONWriter.needsEscape(name.utf8Bytes), "a JSON member name written in the source needs no escape")
        storage = .literal(name)
    }

    public init(_ name: String) { storage = .text(name) }
}
