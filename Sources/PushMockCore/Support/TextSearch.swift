import Foundation

extension StringProtocol {
    /// Whether `needle`'s UTF-8 bytes occur in this string's. Used instead of Foundation's
    /// `contains(_:)`, which traps on some inputs (haystack "i̇", needle "i̇\0": found by the
    /// fuzzer through `GET .../messages?q=`).
    func containsBytes(of needle: some StringProtocol) -> Bool {
        utf8.firstRange(of: needle.utf8) != nil
    }
}

extension StaticString {
    /// The literal's UTF-8 bytes, where the compiler put them (a string literal always has a
    /// pointer representation).
    @inlinable
    public var utf8Bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}

extension String {
    /// Runs `body` on the string's UTF-8 bytes in place (a copy only for a bridged string).
    @inlinable
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = utf8.withContiguousStorageIfAvailable(body) { return r }
        return Array(utf8).withUnsafeBufferPointer(body)
    }

    /// `==`, with the lengths in bytes compared first, inline: `==` on two strings that differ
    /// calls into the run time, and most names a look-up passes differ in length (every send's
    /// `message` is searched for a dozen). So a string canonically equivalent to `other` but of
    /// another length is not it: Google's front end takes a name only as spelled
    /// (docs/reference/google-json.md §J.1).
    @inlinable @inline(__always)
    public func sameSpelling(as other: String) -> Bool {
        utf8.count == other.utf8.count && self == other
    }

    /// Whether the string's UTF-8 bytes are exactly `bytes`.
    @inlinable
    public func hasBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == bytes.count else { return false }
        guard let b = bytes.baseAddress, !bytes.isEmpty else { return true }
        return withBytes { sameBytes($0.baseAddress!, b, count: bytes.count) }
    }

    /// Whether the string's UTF-8 bytes start with `prefix`'s (String's `hasPrefix` compares
    /// grapheme clusters, which is not what a path means).
    @inlinable
    public func hasBytePrefix(_ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        return withBytes { b in b.count >= n && (n == 0 || sameBytes(b.baseAddress!, prefix.utf8Start, count: n)) }
    }

    /// Whether the string's UTF-8 bytes end with `suffix`'s.
    @inlinable
    public func hasByteSuffix(_ suffix: StaticString) -> Bool {
        let n = suffix.utf8CodeUnitCount
        return withBytes { b in b.count >= n && (n == 0 || sameBytes(b.baseAddress! + b.count - n, suffix.utf8Start, count: n)) }
    }

    /// Whether any byte is an ASCII capital letter.
    @inlinable
    public var hasASCIIUppercase: Bool {
        withBytes { $0.contains { $0 >= 0x41 && $0 <= 0x5A } }
    }
}

/// Whether the `count` bytes at `a` and at `b` are the same. Up to 32 bytes are compared
/// inline as words (the first and the last eight or sixteen, which overlap when fewer), and
/// longer runs by `memcmp`: most of what a request compares (header names and values, JSON
/// member names) is short, and a call to `memcmp` costs more than such a comparison.
@inlinable @inline(__always)
public func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count n: Int) -> Bool {
    func word(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 { p.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    if n >= 8 {
        if n > 32 { return memcmp(a, b, n) == 0 }
        var differ = (word(a, 0) ^ word(b, 0)) | (word(a, n - 8) ^ word(b, n - 8))
        if n > 16 { differ |= (word(a, 8) ^ word(b, 8)) | (word(a, n - 16) ^ word(b, n - 16)) }
        return differ == 0
    }
    if n >= 4 {
        func half(_ p: UnsafeRawPointer, _ offset: Int) -> UInt32 { p.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        return (half(a, 0) ^ half(b, 0)) | (half(a, n - 4) ^ half(b, n - 4)) == 0
    }
    var i = 0
    while i < n {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}

/// Copies `count` bytes from `from` to `to` (which do not overlap). Up to 32 bytes are copied
/// inline as words, as `sameBytes` compares them (the first and last eight or sixteen, written
/// twice where they overlap), and longer runs by `memcpy`: an answer is written from many
/// short pieces (names, quotes, a header value), and a call to `memcpy` costs more than such a
/// copy.
@inlinable @inline(__always)
public func copyBytes(from: UnsafeRawPointer, to: UnsafeMutableRawPointer, count n: Int) {
    func word(_ offset: Int) -> UInt64 { from.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    if n >= 8 {
        if n > 32 {
            to.copyMemory(from: from, byteCount: n)
            return
        }
        let first = word(0)
        let last = word(n - 8)
        if n > 16 {
            let second = word(8)
            let lastButOne = word(n - 16)
            to.storeBytes(of: second, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: lastButOne, toByteOffset: n - 16, as: UInt64.self)
        }
        to.storeBytes(of: first, as: UInt64.self)
        to.storeBytes(of: last, toByteOffset: n - 8, as: UInt64.self)
        return
    }
    if n >= 4 {
        let first = from.loadUnaligned(as: UInt32.self)
        let last = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        to.storeBytes(of: first, as: UInt32.self)
        to.storeBytes(of: last, toByteOffset: n - 4, as: UInt32.self)
        return
    }
    for i in 0..<n { to.storeBytes(of: from.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether both hold the same bytes.
    func sameBytes(as other: UnsafeBufferPointer<UInt8>) -> Bool {
        count == other.count && (count == 0 || PushMockCore.sameBytes(baseAddress!, other.baseAddress!, count: count))
    }

    /// Whether these bytes spell `text`.
    func spells(_ text: StaticString) -> Bool { sameBytes(as: text.utf8Bytes) }

    /// Whether these bytes start with `prefix`'s.
    func hasBytePrefix(_ prefix: StaticString) -> Bool {
        count >= prefix.utf8CodeUnitCount
            && (prefix.utf8CodeUnitCount == 0
                || PushMockCore.sameBytes(baseAddress!, prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }
}

extension String {
    /// A String of bytes the caller knows are ASCII. Swift keeps a string of up to 15 bytes in
    /// place, and `init(unsafeUninitializedCapacity:)` makes one of ASCII bytes without
    /// validating them as UTF-8; `String(decoding:)` validates every string, whatever its length.
    @inlinable
    public init(ascii bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, bytes.count <= 15 else {
            self.init(decoding: bytes, as: UTF8.self)
            return
        }
        self.init(unsafeUninitializedCapacity: bytes.count) { out in
            copyBytes(from: base, to: out.baseAddress!, count: bytes.count)
            return bytes.count
        }
    }
}
