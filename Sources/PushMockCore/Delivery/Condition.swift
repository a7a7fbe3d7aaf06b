/// An FCM topic condition such as `'a' in topics && ('b' in topics || !('c' in topics))`:
/// `&&` binds tighter than `||`, `!` negates, parentheses group, at most five topics.
public indirect enum Condition: Equatable, Sendable {
    case topic(String)
    case not(Condition)
    case and(Condition, Condition)
    case or(Condition, Condition)

    public static let maxTopics = 5

    public struct ParseError: Error, Equatable, Sendable {
        public let message: String
    }

    public static func parse(_ text: String) throws(ParseError) -> Condition {
        var p = ConditionParser(Array(text.utf8))
        let c = try p.parseOr()
        p.skipSpace()
        guard p.atEnd else { throw p.error("unexpected text at position \(p.i)") }
        guard p.topicCount <= maxTopics else {
            throw ParseError(message: "condition has \(p.topicCount) topics; at most \(maxTopics) are allowed")
        }
        return c
    }

    /// The topic names the condition mentions, in order.
    public var topics: [String] {
        switch self {
        case .topic(let t): [t]
        case .not(let c): c.topics
        case .and(let a, let b), .or(let a, let b): a.topics + b.topics
        }
    }

    public func matches(_ subscribed: (String) -> Bool) -> Bool {
        switch self {
        case .topic(let t): subscribed(t)
        case .not(let c): !c.matches(subscribed)
        case .and(let a, let b): a.matches(subscribed) && b.matches(subscribed)
        case .or(let a, let b): a.matches(subscribed) || b.matches(subscribed)
        }
    }
}

private struct ConditionParser {
    let b: [UInt8]
    var i = 0
    var topicCount = 0
    var depth = 0

    init(_ b: [UInt8]) { self.b = b }

    var atEnd: Bool { i >= b.count }

    func error(_ message: String) -> Condition.ParseError { Condition.ParseError(message: message) }

    mutating func skipSpace() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }

    mutating func eat(_ s: String) -> Bool {
        skipSpace()
        let u = Array(s.utf8)
        guard i + u.count <= b.count, Array(b[i..<i + u.count]) == u else { return false }
        i += u.count
        return true
    }

    mutating func parseOr() throws(Condition.ParseError) -> Condition {
        var left = try parseAnd()
        while eat("||") { left = .or(left, try parseAnd()) }
        return left
    }

    mutating func parseAnd() throws(Condition.ParseError) -> Condition {
        var left = try parseUnary()
        while eat("&&") { left = .and(left, try parseUnary()) }
        return left
    }

    mutating func parseUnary() throws(Condition.ParseError) -> Condition {
        depth += 1
        defer { depth -= 1 }
        guard depth < 32 else { throw error("condition is nested too deeply") }
        if eat("!") { return .not(try parseUnary()) }
        if eat("(") {
            let inner = try parseOr()
            guard eat(")") else { throw error("missing ')' at position \(i)") }
            return inner
        }
        return try parseTerm()
    }

    mutating func parseTerm() throws(Condition.ParseError) -> Condition {
        skipSpace()
        guard i < b.count, b[i] == 0x27 || b[i] == 0x22 else { throw error("expected a quoted topic name at position \(i)") }
        let quote = b[i]
        i += 1
        let start = i
        while i < b.count, b[i] != quote { i += 1 }
        guard i < b.count else { throw error("unterminated topic name") }
        let name = String(decoding: b[start..<i], as: UTF8.self)
        i += 1
        guard Topic.isValidName(name) else { throw error("invalid topic name '\(name)'") }
        guard eat("in"), eat("topics") else { throw error("expected 'in topics' after '\(name)'") }
        topicCount += 1
        return .topic(name)
    }
}
