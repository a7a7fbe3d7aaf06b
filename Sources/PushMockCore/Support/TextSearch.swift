extension StringProtocol {
    /// Whether `needle`'s UTF-8 bytes occur in this string's. Used instead of Foundation's
    /// `contains(_:)`, which traps on some inputs (haystack "i̇", needle "i̇\0": found by the
    /// fuzzer through `GET .../messages?q=`).
    func containsBytes(of needle: some StringProtocol) -> Bool {
        utf8.firstRange(of: needle.utf8) != nil
    }
}
