internal import CNghttp2
import PushMockCore

/// An answer's header fields as nghttp2 takes them: one byte buffer, reused from answer to
/// answer, holding each name (lower-cased, as HTTP/2 requires) and value, and their spans.
struct ResponseFields {
    private var text: [UInt8] = []
    private var spans: [(name: Int, value: Int, end: Int)] = []

    /// Starts the next answer's fields with its `:status`.
    mutating func start(status: Int) {
        text.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        text.append(contentsOf: Self.statusName)
        // Three digits, written as bytes, without formatting a String.
        let s = min(max(status, 100), 999)
        text.append(UInt8(48 + s / 100))
        text.append(UInt8(48 + s / 10 % 10))
        text.append(UInt8(48 + s % 10))
        spans.append((0, Self.statusName.count, text.count))
    }

    private static let statusName = Array(":status".utf8)

    /// A field from the gateway: its name lower-cased in place once copied.
    mutating func add(_ name: String, _ value: String) {
        let n0 = text.count
        name.withBytes { text.append(contentsOf: $0) }
        let v0 = text.count
        text.withUnsafeMutableBufferPointer { b in
            for i in n0..<v0 where b[i] &- UInt8(ascii: "A") < 26 { b[i] |= 0x20 }
        }
        value.withBytes { text.append(contentsOf: $0) }
        spans.append((n0, v0, text.count))
    }

    /// A field (named in lower case) whose value is a number, written without making a String.
    mutating func add(_ name: StaticString, _ number: Int) {
        let n0 = text.count
        text.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        let v0 = text.count
        DecimalDigits.append(UInt64(number), to: &text)
        spans.append((n0, v0, text.count))
    }

    /// Calls `body` with nghttp2's name/value array for the fields (valid during the call;
    /// nghttp2 copies what it keeps). Values other than the status are marked not to be
    /// indexed: many are new in each answer (ids), and adding them to HPACK's dynamic table
    /// only churned it.
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        let indexed = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        let notIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        let spans = spans
        return text.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: spans.count) { nva in
                for (i, span) in spans.enumerated() {
                    nva[i] = nghttp2_nv(
                        name: base + span.name, value: base + span.value, namelen: span.value - span.name,
                        valuelen: span.end - span.value, flags: i == 0 ? indexed : notIndexed)
                }
                return body(UnsafePointer(nva.baseAddress!), spans.count)
            }
        }
    }
}
