/// The cases of an enum spelled by its raw values, found by a text's bytes as `MemberNames`
/// finds a member's name: only spellings of the text's length are compared. The synthesized
/// `init(rawValue:)` compares the text with each case in turn, and a restart reads a million
/// devices' platforms and states (docs/PERFORMANCE.md).
struct Spellings<T: RawRepresentable & CaseIterable & Sendable>: Sendable where T.RawValue == String {
    private let cases: [T]
    private let names: MemberNames

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
