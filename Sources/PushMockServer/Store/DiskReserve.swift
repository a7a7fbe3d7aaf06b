import Glibc

/// Disk space held back for the durable log (`--disk-reserve-mb`): a file of that size,
/// allocated, in the data directory. When a commit fails because the disk is full the store
/// frees it, so the events of sends already answered can still be written, and refuses new
/// sends until the file can be allocated whole again, once space was freed
/// (docs/durable-store.md, "A full disk"). Writer thread only, after `init`.
struct DiskReserve {
    let path: String
    let bytes: Int
    /// Whether the space is held; always true when no reserve was asked for.
    private(set) var held: Bool

    /// Allocates the reserve, reusing one left by an earlier run; `held` says whether that
    /// worked. With 0 bytes an old reserve file is removed.
    init(directory: String, bytes: Int) {
        path = directory + "/pushmock.reserve"
        self.bytes = bytes
        held = true
        held = allocate()
    }

    /// Frees the space for the store to use. Returns false when there was none to free.
    mutating func release() -> Bool {
        guard bytes > 0, held else { return false }
        unlink(path)
        held = false
        return true
    }

    /// Tries to hold the space again; true once it is held.
    mutating func restore() -> Bool {
        if !held { held = allocate() }
        return held
    }

    private func allocate() -> Bool {
        guard bytes > 0 else {
            unlink(path)
            return true
        }
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, Int(info.st_size) > bytes { ftruncate(fd, off_t(bytes)) }
        // posix_fallocate reserves real blocks (ENOSPC when they are not there); a partial
        // allocation is given back rather than kept.
        guard posix_fallocate(fd, 0, off_t(bytes)) == 0, fsync(fd) == 0 else {
            unlink(path)
            return false
        }
        return true
    }
}
