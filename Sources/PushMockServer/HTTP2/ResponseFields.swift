internal import CNghttp2
import Glibc
import PushMockCore

/// An answer's header fields as nghttp2 takes them: one run of bytes (`OwnedBytes`), reused
/// from answer to answer, holding each name (lower-cased, as HTTP/2 requires) and value, and
/// their spans. One connection's answers: the previous answer's fields are kept to say which
/// fields repeat.
struct ResponseFields: ~Copyable {
    private var text = OwnedBytes(capacity: 256)
    private var spans: [(name: Int, value: Int, end: Int)] = []
    private var previousText = OwnedBytes(capacity: 256)
    private var previousSpans: [(name: Int, value: Int, end: Int)] = []

    /// Starts the next answer's fields with its `:status`; the last answer's become the
    /// previous.
    mutating func start(status: Int) {
        swap(&text, &previousText)
        swap(&spans, &previousSpans)
        text.removeAll()
        spans.removeAll(keepingCapacity: true)
        text.append(":status")
        let nameEnd = text.count
        // Three digits, written as bytes, without formatting a String.
        let s = min(max(status, 100), 999)
        text.append(UInt8(48 + s / 100))
        text.append(UInt8(48 + s / 10 % 10))
        text.append(UInt8(48 + s % 10))
        spans.append((0, nameEnd, text.count))
    }

    /// A field from the gateway: its name lower-cased in place once copied.
    mutating func add(_ name: String, _ value: String) {
        let n0 = text.count
        name.withBytes { text.append($0) }
        let v0 = text.count
        text.lowercase(from: n0)
        value.withBytes { text.append($0) }
        spans.append((n0, v0, text.count))
    }

    /// A field (named in lower case) whose value is a number, written without making a String.
    mutating func add(_ name: StaticString, _ number: Int) {
        let n0 = text.count
        text.append(name)
        let v0 = text.count
        text.appendDecimal(Int64(number))
        spans.append((n0, v0, text.count))
    }

    /// Calls `body` with nghttp2's name/value array for the fields (valid during the call;
    /// nghttp2 copies what it keeps). The status, and a field the previous answer had in the
    /// same place with the same value (a content type, a length), may be indexed: HPACK then
    /// sends it again as one byte. Other values are marked not to be: many are new in each
    /// answer (ids), and adding them to the dynamic table only churned it.
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        let indexed = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        let notIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        // nghttp2 reads the bytes and never writes them.
        let base = UnsafeMutablePointer(mutating: text.bytes.baseAddress!)
        return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: spans.count) { nva in
            for (i, span) in spans.enumerated() {
                nva[i] = nghttp2_nv(
                    name: base + span.name, value: base + span.value, namelen: span.value - span.name,
                    valuelen: span.end - span.value, flags: i == 0 || repeatsPrevious(i) ? indexed : notIndexed)
            }
            return body(UnsafePointer(nva.baseAddress!), spans.count)
        }
    }

    /// Whether field `i` has the bytes of the previous answer's field `i`.
    private func repeatsPrevious(_ i: Int) -> Bool {
        guard i < previousSpans.count else { return false }
        let now = spans[i]
        let before = previousSpans[i]
        let count = now.end - now.name
        guard before.end - before.name == count, now.value - now.name == before.value - before.name else { return false }
        return sameBytes(text.bytes.baseAddress! + now.name, previousText.bytes.baseAddress! + before.name, count: count)
    }
}
