import Foundation

/// Finds what SQLite's recovery of a write-ahead log would silently drop. Recovery reads the
/// frames in order and stops at the first whose salts or checksum do not match; frames of the
/// same log written after it are then ignored, transactions committed or not. A torn last
/// write (a crash mid-commit) looks the same but has nothing after it, so only frames of the
/// current log found after the bad one count as damage. The format is SQLite's "Database
/// File Format" §4 (docs/durable-store.md, "Damage").
enum WALCheck {
    struct Damage: Equatable {
        /// The first frame recovery rejects (1-based; 0: the header) and where it starts in the file.
        let frame: Int
        let offset: Int
        /// Frames of the current log after it, and how many of them end a transaction.
        let framesAfter: Int
        let commitsAfter: Int
    }

    static let headerBytes = 32
    static let frameHeaderBytes = 24

    /// The damage in the log at `path`; nil when it is whole (or absent, or too short to hold a frame).
    static func damage(in path: String) -> Damage? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return damage(in: [UInt8](data))
    }

    static func damage(in bytes: [UInt8]) -> Damage? {
        guard bytes.count >= headerBytes else { return nil }
        let magic = word(bytes, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(bytes, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
        let salts = (word(bytes, 16), word(bytes, 20))
        var sum = checksum(bytes[0..<24], bigEndian: bigEndian, seed: (0, 0))
        // A header that fails its own checksum makes SQLite ignore the whole log.
        guard sum == (word(bytes, 24), word(bytes, 28)) else {
            return framesAfter(bytes, from: headerBytes, bad: (0, 0), pageSize: pageSize, salts: salts)
        }
        let frameBytes = frameHeaderBytes + pageSize
        var frame = 0
        var offset = headerBytes
        while offset + frameBytes <= bytes.count {
            sum = checksum(bytes[offset..<offset + 8], bigEndian: bigEndian, seed: sum)
            sum = checksum(bytes[offset + frameHeaderBytes..<offset + frameBytes], bigEndian: bigEndian, seed: sum)
            let valid =
                (word(bytes, offset + 8), word(bytes, offset + 12)) == salts
                && sum == (word(bytes, offset + 16), word(bytes, offset + 20))
            if !valid {
                return framesAfter(bytes, from: offset + frameBytes, bad: (frame + 1, offset), pageSize: pageSize, salts: salts)
            }
            frame += 1
            offset += frameBytes
        }
        return nil
    }

    /// Counts the current log's frames from `from` on: the damage at `bad` (frame number, 0
    /// for the header, and offset) if there are any.
    private static func framesAfter(
        _ bytes: [UInt8], from: Int, bad: (frame: Int, offset: Int), pageSize: Int, salts: (UInt32, UInt32)
    ) -> Damage? {
        let frameBytes = frameHeaderBytes + pageSize
        var frames = 0
        var commits = 0
        var offset = from
        while offset + frameBytes <= bytes.count {
            if (word(bytes, offset + 8), word(bytes, offset + 12)) == salts {
                frames += 1
                if word(bytes, offset + 4) != 0 { commits += 1 }
            }
            offset += frameBytes
        }
        guard frames > 0 else { return nil }
        return Damage(frame: bad.frame, offset: bad.offset, framesAfter: frames, commitsAfter: commits)
    }

    /// SQLite's cumulative checksum over 32-bit words, in the byte order the magic number names.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var i = bytes.startIndex
        while i + 8 <= bytes.endIndex {
            let a = bigEndian ? word(bytes, i) : littleWord(bytes, i)
            let b = bigEndian ? word(bytes, i + 4) : littleWord(bytes, i + 4)
            s0 = s0 &+ a &+ s1
            s1 = s1 &+ b &+ s0
            i += 8
        }
        return (s0, s1)
    }

    private static func word<C: RandomAccessCollection>(_ b: C, _ i: C.Index) -> UInt32 where C.Element == UInt8, C.Index == Int {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func littleWord(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i + 3]) << 24 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i])
    }
}
