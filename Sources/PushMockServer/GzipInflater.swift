internal import CZlib

/// Undoes a `Content-Encoding: gzip` request body with zlib (Android's Firebase SDK gzips
/// every Installations request, docs/reference/fcm-clients.md §1.1). A body that is not gzip, or
/// that would inflate past `limit` (a small bomb of zeros), is nil.
enum GzipInflater {
    static func inflate(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        guard !bytes.isEmpty else { return nil }
        var stream = z_stream()
        // 16 + 15: a gzip header and trailer, the largest window.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var input = bytes
        return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard out.count + produced <= limit else { return nil }
                out += chunk[..<produced]
                switch status {
                case Z_STREAM_END: return stream.avail_in == 0 ? out : nil
                case Z_OK: if produced == 0, stream.avail_in == 0 { return nil }
                default: return nil
                }
            }
        }
    }
}
