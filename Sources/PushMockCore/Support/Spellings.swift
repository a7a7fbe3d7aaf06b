/// The cases of an enum spelled by its raw values, found by a text's bytes as `MemberNames`
/// finds a member's name: only spellings of the text's length are compared. The synthesized
/// `init(rawValue:)` compares the text with each case in turn, and a restart reads a million
/// devices' platforms and states (docs/PERFORMANCE.md).
struct Spellings<T: RawRepresentable & CaseIterable & Sendable>: Sendable where T.RawValue == String {
    fileprivate let cases: [T]
    fileprivate let names: MemberNames

    init() {
        cases = Array(T.allCases)
        names = MemberNames(cases.map(\.rawValue))
    }

    /// The case spelled `text`, nil for none (as `init(rawValue:)`).
    func find(_ text: String) -> T? {
        var text = text
        return text.withUTF8 { names.index(of: $0) }.map { cases[$0] }
    }
}

extension JSONParser {
    /// Walks the object at the reader as `readMembers` does, each name handed over as the case
    /// it spells, matched on its bytes (nil for a name that spells none, whose value `body`
    /// must still consume).
    mutating func readMembers<T>(
        _ spellings: Spellings<T>, _ body: (inout JSONParser, T?) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        try readMembers(spellings.names) { p, name throws(JSONParseError) in
            if case .known(let index) = name { try body(&p, spellings.cases[index]) } else { try body(&p, nil) }
        }
    }
}
