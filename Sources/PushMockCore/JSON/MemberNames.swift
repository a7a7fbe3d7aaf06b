import Foundation

/// Member names a reader matches on their bytes (`JSONParser.readMembers(_:_:)`): a name it
/// holds is found without making a String of it, only other names become Strings. A restart
/// reads a dozen names in each of a million saved devices (docs/PERFORMANCE.md).
public struct MemberNames: Sendable {
    private let names: [[UInt8]]
    /// The names' places by their length in bytes.
    private let byLength: [[Int]]

    public init(_ names: [String]) {
        self.names = names.map { Array($0.utf8) }
        var byLength = [[Int]](repeating: [], count: (self.names.map(\.count).max() ?? 0) + 1)
        for (i, name) in self.names.enumerated() { byLength[name.count].append(i) }
        self.byLength = byLength
    }

    /// The place of the name spelled by `bytes`, nil when it holds no such name: only names
    /// of its length are compared.
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count < byLength.count, let base = bytes.baseAddress else { return nil }
        for i in byLength[bytes.count]
        where names[i].withUnsafeBufferPointer({ sameBytes($0.baseAddress!, base, count: bytes.count) }) {
            return i
        }
        return nil
    }
}

/// A member's name as `JSONParser.readMembers(_:_:)` hands it over.
public enum MemberName {
    /// The place among the `MemberNames` given.
    case known(Int)
    /// A name they do not hold.
    case other(String)
}

extension JSONParser {
    /// Walks the object at the reader as `readMembers` does, a name among `names` handed over
    /// by its place. A name with escapes or non-ASCII bytes is decoded first, so it matches as
    /// its text does.
    public mutating func readMembers(
        _ names: MemberNames, _ body: (inout JSONParser, MemberName) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "{") else { throw fail() }
        try eachMember(name: { p throws(JSONParseError) in try p.readName(names) }, body)
    }

    /// The member name at `i` (its opening quote), matched on its bytes when they need no
    /// decoding.
    private mutating func readName(_ names: MemberNames) throws(JSONParseError) -> MemberName {
        if let bytes = plainString() {
            if let index = names.index(of: bytes) { return .known(index) }
            return .other(String(ascii: bytes))
        }
        var name = try string()
        let index = name.withUTF8 { names.index(of: $0) }
        return index.map { .known($0) } ?? .other(name)
    }
}
