internal import CSQLite
import Foundation
import Glibc
import PushMockCore

/// The durable delivery log (`--data-dir`): every event also goes to SQLite, readable as a
/// table named and shaped like FCM's BigQuery export (the view `data`, docs/durable-store.md).
/// The loop thread only appends each event's JSON to the pending commit (`PendingCommit`); one
/// writer thread commits what is pending as one row every `commitInterval` (WAL,
/// `synchronous=FULL`, so a committed event survives a crash of pushmock or of the machine).
final class EventStore: EventSink, @unchecked Sendable {
    /// The bound on how long an answered send waits to be on disk (plus the commit itself).
    static let commitInterval = 0.05
    /// `PRAGMA application_id` of a pushmock store ("psmk"), so a foreign SQLite file is refused.
    static let applicationID: Int32 = 0x7073_6D6B
    /// `PRAGMA user_version` of the current schema; older stores are migrated at open.
    static let schemaVersion: Int64 = 6

    let path: String
    /// Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    /// The events of the next commit, as they come.
    private var pending = PendingCommit()
    /// Commits to make, oldest first; a failed one waits at the head.
    private var queue: [PendingCommit.Commit] = []
    /// Changed control-plane rows not yet written, oldest first (`Gateway.changedState`).
    private var pendingState: [StateRows] = []
    /// Set when the saved state came from an old store's snapshot: the first commit of rows
    /// drops it.
    private var dropSnapshot = false
    /// Projects whose events through a seq were removed, deleted after the queue's rows.
    private var removals: [(projectID: String, through: Int64)] = []
    /// Sends logged before their answer, begun (`open`) or answered since the last commit:
    /// committed with the events recorded before them (`unanswered` table).
    private var marks: [UnansweredMark] = []
    /// Set while commits fail (a full disk with no reserve left); the failed batch waits at the
    /// head of the queue and is retried every `commitInterval` until a commit succeeds.
    private var failure: String?
    /// Set from the moment the disk reserve is not held (freed for a commit, or not there at
    /// start) until it is again: new sends are refused meanwhile.
    private var reserveMissing = false
    /// The highest seq on disk.
    private var committedSeq: Int64 = 0
    private var stopping = false
    /// Loop-thread waits for a commit (`--sync always`): the writer commits at once.
    private var syncWaiters = 0
    /// The highest seq an answer waits for without blocking (`isStored`): the writer commits
    /// at once while it is not on disk.
    private var awaitedSeq: Int64 = 0
    private var stopped = false
    /// Opened and read here (at start, on the caller's thread), then used only by the writer
    /// thread from `start()` until it ends; closed by it.
    private let db: OpaquePointer
    private let lockFD: Int32
    /// Made at start, then the writer thread's.
    private var reserve: DiskReserve
    /// The database file as opened (device and inode), to notice it being removed or replaced.
    private var opened = stat()
    /// The database file opened for `posix_fadvise` (`releaseWrittenPages`), and its size then.
    private let cacheFD: Int32
    private var cachedSize: off_t = 0
    /// When the writer last tried to hold the reserve again.
    private var reserveTried = Date.distantPast
    /// Reports what the operator must know (a full disk, space back); called on any thread.
    private let warn: @Sendable (String) -> Void
    /// The highest seq the store held when it opened: new events are numbered after it.
    let lastStoredSeq: Int64
    /// Why reading the events back at start failed, as the server reports it.
    var readFailure: ServerError?

    /// A data directory is pushmock's own: empty, or holding its store. One that holds other
    /// files and no store (`/`, a home folder, a typo) is refused, so the store and its
    /// 16 MiB reserve are not written among them; a symbolic link is followed, and said.
    /// pushmock's certificate directory is its own too: the image keeps it in the data volume
    /// (`/data/certs`), and makes it before the store.
    static func checkIsOwn(_ directory: String, certDirectory: String, warn: (String) -> Void) throws(ServerError) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let base = URL(fileURLWithPath: directory)
        let certificates = URL(fileURLWithPath: certDirectory).standardizedFileURL.path
        let others = entries.filter {
            !$0.hasPrefix("pushmock.") && base.appendingPathComponent($0).standardizedFileURL.path != certificates
        }.sorted()
        if !others.isEmpty, !entries.contains("pushmock.db") {
            let shown = others.prefix(3).joined(separator: ", ") + (others.count > 3 ? ", …" : "")
            throw ServerError(
                .store,
                "--data-dir \(directory) holds other files (\(shown)) and no pushmock.db: give pushmock an empty directory or one it made"
            )
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory) {
            warn("pushmock: --data-dir \(directory) is a symbolic link to \(target); the store is written there")
        }
    }

    /// Opens (or creates) `directory/pushmock.db`, holding `directory/pushmock.lock` for as long
    /// as the process lives: a second pushmock on the same directory is refused. Sets aside
    /// `reserveBytes` of disk (`DiskReserve`).
    init(
        directory: String, certDirectory: String, reserveBytes: Int, warn: @escaping @Sendable (String) -> Void
    ) throws(ServerError) {
        self.warn = warn
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch { throw ServerError(.store, "--data-dir \(directory): cannot create it: \(error.localizedDescription)") }
        guard access(directory, W_OK) == 0 else { throw ServerError(.store, "--data-dir \(directory): not writable") }
        try Self.checkIsOwn(directory, certDirectory: certDirectory, warn: warn)
        let fd = open(directory + "/pushmock.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ServerError(.store, "--data-dir \(directory): cannot open pushmock.lock: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw ServerError(
                .store,
                "--data-dir \(directory) is in use by another pushmock (pushmock.lock is held); give each pushmock its own data directory"
            )
        }
        // The lock is held until the process ends (the descriptor stays open).
        lockFD = fd
        path = directory + "/pushmock.db"
        // SQLite takes a 0-byte file for a new database: a store truncated to nothing would
        // start empty without a word.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw ServerError(.store, "\(path) is empty (0 bytes), not the store pushmock wrote; move it away to start afresh")
        }
        assert(EventRows.layoutIsConsistent)
        try Self.keepDamagedLog(path + "-wal", warn: warn)
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let handle
        else {
            sqlite3_close(handle)
            throw ServerError(.store, "\(path): cannot open")
        }
        db = handle
        // The reads at start (the quick check, the saved state, the newest events) go through
        // a mapping of the file, not `pread`'s copy of every page (docs/PERFORMANCE.md).
        // SQLite caps the size at its build's limit; `start` unmaps the file before the writer
        // runs, so a write never meets the mapping.
        sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776", nil, nil, nil)
        do {
            try Self.prepare(db, path: path)
            lastStoredSeq = try Self.maxSeq(db)
        } catch {
            sqlite3_close(db)
            throw error
        }
        committedSeq = lastStoredSeq
        stat(path, &opened)
        cacheFD = open(path, O_RDONLY | O_CLOEXEC)
        reserve = DiskReserve(directory: directory, bytes: reserveBytes)
        if !reserve.held {
            reserveMissing = true
            warn(
                "pushmock: cannot set aside \(reserveBytes >> 20) MiB in \(directory) (--disk-reserve-mb): the disk is full; sends are answered 503 until there is room"
            )
        }
    }

    /// Starts the writer thread; from here on only it touches the database. Call after
    /// `loadState` and `readEvents`.
    func start() {
        sqlite3_exec(db, "PRAGMA mmap_size = 0", nil, nil, nil)
        let thread = Thread { [self] in writerLoop() }
        thread.name = "pushmock-store"
        thread.start()
    }

    /// A write-ahead log SQLite would recover only in part (`WALCheck`): says so loudly, with
    /// counts, and keeps a copy of it as it was, since recovery overwrites it. Refuses to start
    /// if the copy cannot be made.
    private static func keepDamagedLog(_ wal: String, warn: (String) -> Void) throws(ServerError) {
        guard let damage = WALCheck.damage(in: wal) else { return }
        let copy = wal + ".damaged-\(Int(Date().timeIntervalSince1970))"
        do { try FileManager.default.copyItem(atPath: wal, toPath: copy) } catch {
            throw ServerError(
                .store,
                "\(wal) is damaged and a copy could not be kept (\(error.localizedDescription)); move it away to start")
        }
        let place = damage.frame == 0 ? "its header" : "frame \(damage.frame) (byte \(damage.offset))"
        warn(
            "pushmock: WARNING: \(wal) is damaged at \(place): SQLite's recovery keeps what comes before and drops the \(damage.framesAfter) frames written after it (\(damage.commitsAfter) committed transactions); the log as it was is kept in \(copy)"
        )
    }

    /// Checks the file is a pushmock store (or empty), then sets it up: WAL, full sync, the table.
    private static func prepare(_ db: OpaquePointer, path: String) throws(ServerError) {
        if let cut = cutShort(path) {
            throw ServerError(.store, "\(path) is damaged: \(cut); move it away or choose another --data-dir")
        }
        guard let id = try? int(db, "PRAGMA application_id") else {
            if isSQLite(path) {
                throw ServerError(
                    .store,
                    "\(path) is damaged (SQLite cannot read it: \(message(db))); move it away or choose another --data-dir")
            }
            throw ServerError(
                .store,
                "\(path) is not a SQLite database (corrupt, or another kind of file); move it away or choose another --data-dir")
        }
        let tables = (try? int(db, "SELECT count(*) FROM sqlite_master")) ?? 0
        if id != Int64(applicationID), tables > 0 || id != 0 {
            throw ServerError(
                .store, "\(path) is a SQLite database but not pushmock's (application_id \(id)); choose another --data-dir")
        }
        guard (try? text(db, "PRAGMA quick_check")) == "ok" else {
            throw ServerError(.store, "\(path) is damaged (PRAGMA quick_check failed); move it away or choose another --data-dir")
        }
        if let version = try? int(db, "PRAGMA user_version"), version > schemaVersion {
            throw ServerError(
                .store,
                "\(path) was written by a newer pushmock (store version \(version), this one reads up to \(schemaVersion)); use that version or choose another --data-dir"
            )
        }
        // Version 1 (before the state table) lacked `api` and `time_us`.
        if tables > 0, (try? int(db, "PRAGMA user_version")) ?? 0 < 2,
            (try? int(db, "SELECT count(*) FROM pragma_table_info('data') WHERE name = 'time_us'")) == 0
        {
            try exec(
                db, "ALTER TABLE data ADD COLUMN api TEXT; ALTER TABLE data ADD COLUMN time_us INTEGER NOT NULL DEFAULT 0;",
                path: path)
        }
        // Versions 1 to 3 kept a row per event in the table `data`; it becomes `log` commits.
        if (try? int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'data'")) == 1 {
            try exec(db, "BEGIN; \(EventRows.migrationFromTable) COMMIT;", path: path)
        } else if (try? int(db, "PRAGMA user_version")) == 4 {
            // Version 4 kept one array of all the columns per event; they become blocks.
            try exec(db, "BEGIN; \(EventRows.migrationFromArrays) COMMIT;", path: path)
        } else if (try? int(db, "PRAGMA user_version")) == 5 {
            // Version 5 kept groups of a message's events with the device's columns in each.
            try exec(db, "BEGIN; \(EventRows.migrationFromGroups) COMMIT;", path: path)
        }
        // 16 KiB pages (a commit is a long run of overflow pages: fewer, larger writes); the
        // size takes effect only when the database is created.
        try exec(
            db,
            """
            PRAGMA page_size = 16384;
            PRAGMA user_version = \(schemaVersion);
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA application_id = \(applicationID);
            \(EventRows.schema)
            \(StateTables.schema)
            \(UnansweredMark.schema)
            """, path: path)
    }

    // MARK: the loop thread

    func record(_ e: Event) {
        condition.lock()
        pending.append(e)
        condition.unlock()
    }

    func removeAll(projectID: String, through seq: Int64) {
        condition.lock()
        removals.append((projectID, seq))
        condition.unlock()
    }

    func unanswered(projectID: String, messageID: String, open: Bool) {
        condition.lock()
        marks.append(UnansweredMark(projectID: projectID, messageID: messageID, open: open))
        condition.unlock()
    }

    /// `--sync always`: wakes the writer and waits until everything up to `seq` is on disk.
    /// Returns false when it cannot be (the disk is full).
    func waitUntilStored(_ seq: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        syncWaiters += 1
        condition.broadcast()
        while committedSeq < seq, failure == nil, !stopped { condition.wait() }
        syncWaiters -= 1
        return committedSeq >= seq
    }

    /// `--sync always` without blocking the loop (the end of a sliced fan-out): whether
    /// everything up to `seq` is on disk, nil while the writer, woken, is still at it; false
    /// when it cannot be.
    func isStored(_ seq: Int64) -> Bool? {
        condition.lock()
        defer { condition.unlock() }
        if committedSeq >= seq { return true }
        if failure != nil || stopped { return false }
        if awaitedSeq < seq {
            awaitedSeq = seq
            condition.broadcast()
        }
        return nil
    }

    /// Queues changed control-plane rows for the next commit.
    func saveState(_ rows: StateRows) {
        guard !rows.isEmpty else { return }
        condition.lock()
        pendingState.append(rows)
        condition.unlock()
    }

    /// The saved state, read at start (before the writer runs): the projects as a fixture and
    /// each project's device rows; nil when none was saved. `fromSnapshot`: an old store's
    /// single snapshot (a fixture with its devices), which the caller replaces with rows by
    /// saving every row once (`Gateway.allState`).
    func loadState() throws(ServerError) -> (fixture: [UInt8], devices: [String: SavedDeviceRows], fromSnapshot: Bool)? {
        let state = try StateTables.load(db) { unreadable($0) }
        dropSnapshot = state?.fromSnapshot == true
        return state
    }

    /// A read at start that failed part-way: the file is damaged where the quick check did not look.
    private func unreadable(_ what: String, after rows: Int? = nil) -> ServerError {
        let read = rows.map { " after \($0) of them" } ?? ""
        return ServerError(
            .store,
            "\(path): reading \(what) failed\(read) (\(Self.message(db))); the file is damaged: move it away or choose another --data-dir"
        )
    }

    /// The sends a stop cut short before they were answered, read at start.
    func loadUnanswered() -> Set<UnansweredMark.Key> { UnansweredMark.load(db) }

    /// The newest `limit` events, oldest first, read at start (before the writer runs) and
    /// handed to `body` a group at a time: the commits' counts, newest first, say which commit
    /// they start in and how many of its events are older; then the commits from there are
    /// read in order, each decoded as it comes (`EventRows.eachGroup`). A block that is not as
    /// `EventRows` writes them comes back as `StoredGroup.damaged`, which the gateway counts.
    func readEvents(limit: Int, knownToken: (String) -> String?, _ body: (StoredGroup) -> Void) throws(ServerError) {
        var start: Int64 = .max
        var total = 0
        let fail = { (rows: Int?) in self.unreadable("the commits of events", after: rows) }
        try SQLiteQuery.each(db, "SELECT first_seq, count FROM log ORDER BY first_seq DESC", fail: fail) { stmt in
            start = sqlite3_column_int64(stmt, 0)
            total += Int(sqlite3_column_int64(stmt, 1))
            return total < limit
        }
        // The oldest commit read may hold older events than the newest `limit`; a damaged
        // commit whose count is wrong may bring more (the reading stops at `limit`).
        var skip = max(0, total - limit)
        var read = 0
        try SQLiteQuery.each(db, "SELECT events FROM log WHERE first_seq >= \(start) ORDER BY first_seq", fail: fail) {
            stmt throws(ServerError) in
            let text = sqlite3_column_text(stmt, 0)
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(stmt, 0)))
            do throws(JSONParseError) {
                try EventRows.eachGroup(in: bytes, knownToken: knownToken) { group in
                    let n = max(group.events.count, 1) // a damaged block counts as one
                    if skip >= n {
                        skip -= n
                        return
                    }
                    guard read < limit else { return }
                    read += n - skip
                    if skip > 0 {
                        group.events.removeFirst(skip)
                        skip = 0
                    }
                    body(group)
                }
            } catch {
                throw ServerError(
                    .store,
                    "\(path): a commit of events is not the JSON pushmock wrote (after \(read) events); the file is damaged: move it away or choose another --data-dir"
                )
            }
            return read < limit
        }
    }

    /// Whether commits are failing (read on the loop thread before each send).
    var isFailing: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure != nil || reserveMissing
    }

    /// Shutdown: commits what is queued and closes the database. Returns what could not be
    /// written (a full disk) and why; nil when everything is on disk.
    @discardableResult
    func close() -> String? {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        if pending.count > 0 { queue.append(pending.take()) }
        guard !queue.isEmpty || !pendingState.isEmpty || !removals.isEmpty else { return nil }
        let events = queue.reduce(0) { $0 + $1.count }
        let what = [
            queue.isEmpty ? nil : "\(events) acknowledged events",
            pendingState.isEmpty ? nil : "the latest control-plane changes",
            removals.isEmpty ? nil : "the removal of \(removals.count) projects' events",
        ].compactMap { $0 }.joined(separator: " and ")
        return "\(what) could not be written to \(path) and are lost: \(failure ?? "the database could not be written")"
    }

    // MARK: the writer thread

    private func writerLoop() {
        var insert: OpaquePointer?
        let sql = "INSERT INTO log VALUES (?, ?, ?, ?)"
        if sqlite3_prepare_v2(db, sql, -1, &insert, nil) != SQLITE_OK {
            condition.lock()
            failure = "cannot prepare the insert: \(Self.message(db))"
            condition.unlock()
        }
        var lastCommit = Date.distantPast
        while true {
            condition.lock()
            // One commit per `commitInterval` at most, so a commit's cost is shared by all
            // the events of the interval; at once for a `--sync always` send, and at the end.
            while !stopping, syncWaiters == 0, awaitedSeq <= committedSeq {
                let due = lastCommit.addingTimeInterval(Self.commitInterval)
                let work = pending.count > 0 || !queue.isEmpty || !pendingState.isEmpty || !removals.isEmpty || !marks.isEmpty
                if work, Date() >= due { break }
                // Without a reserve (a full disk), try to hold it again once a second.
                if !work, !reserve.held, Date().timeIntervalSince(reserveTried) >= 1 { break }
                _ = condition.wait(until: work ? due : Date(timeIntervalSinceNow: Self.commitInterval))
            }
            lastCommit = Date()
            if pending.count > 0 { queue.append(pending.take()) }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            let state = pendingState
            pendingState.removeAll()
            let removed = removals
            removals.removeAll()
            let marked = marks
            marks.removeAll()
            let done = stopping
            condition.unlock()
            let work = !batch.isEmpty || !state.isEmpty || !removed.isEmpty || !marked.isEmpty
            // A store whose file was removed or replaced would take commits into a file no one
            // will read again: checked before each commit, and nothing more is committed.
            let gone = work ? vanished() : nil
            if work, let insert, let why = gone ?? commit(batch, state, removed, marked, insert) {
                // Keep the batch: nothing is dropped while the disk is full.
                condition.lock()
                queue.insert(contentsOf: batch, at: 0)
                pendingState.insert(contentsOf: state, at: 0)
                removals.insert(contentsOf: removed, at: 0)
                marks.insert(contentsOf: marked, at: 0)
                if gone != nil, failure == nil {
                    reserveMissing = true
                    warn("pushmock: \(why); nothing more can be made durable: new sends are answered 503; restart pushmock")
                }
                if gone == nil, reserve.release() {
                    // Refuse new sends from now on, and write what was answered in the space freed.
                    reserveMissing = true
                    condition.unlock()
                    warn(
                        "pushmock: the disk holding \(path) is full (\(why)); its reserve was freed to write the events already answered, and new sends are answered 503 until space is freed"
                    )
                    lastCommit = .distantPast
                    continue
                }
                failure = why
                condition.broadcast()
                if !done { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.commitInterval)) }
                condition.unlock()
                if done { break }
                continue
            }
            if work { releaseWrittenPages() }
            if done { break }
            holdReserveAgain()
        }
        sqlite3_finalize(insert)
        sqlite3_close(db)
        Glibc.close(cacheFD)
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Commits a batch, then the removals (after the rows, which they may name); returns why
    /// it could not (the transaction rolled back), or nil.
    private func commit(
        _ batch: [PendingCommit.Commit], _ state: [StateRows], _ removed: [(projectID: String, through: Int64)],
        _ marked: [UnansweredMark], _ stmt: OpaquePointer
    ) -> String? {
        guard sqlite3_exec(db, "BEGIN", nil, nil, nil) == SQLITE_OK else { return Self.message(db) }
        var written = true
        for rows in state where written { written = StateTables.write(db, rows) }
        let droppingSnapshot = dropSnapshot && !state.isEmpty
        if droppingSnapshot, written { written = StateTables.dropSnapshot(db) }
        for b in batch where written {
            sqlite3_bind_int64(stmt, 1, b.first)
            sqlite3_bind_int64(stmt, 2, b.last)
            sqlite3_bind_int64(stmt, 3, Int64(b.count))
            // SQLITE_STATIC (nil): the bytes stay put until the statement is reset.
            let json = b.json.bytes
            sqlite3_bind_text(stmt, 4, json.baseAddress, Int32(json.count), nil)
            written = sqlite3_step(stmt) == SQLITE_DONE
            sqlite3_reset(stmt)
        }
        for r in removed where written { written = delete(r.projectID, through: r.through) }
        for m in marked where written { written = UnansweredMark.write(m, db) }
        guard written, sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else {
            let why = Self.message(db)
            sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            return why
        }
        if droppingSnapshot { dropSnapshot = false }
        condition.lock()
        failure = nil
        if let last = batch.last { committedSeq = last.last }
        condition.broadcast()
        condition.unlock()
        return nil
    }

    /// The first 100 bytes of a database file: SQLite's header ("Database File Format", §1.3,
    /// https://www.sqlite.org/fileformat2.html#the_database_header).
    private static func header(_ path: String) -> [UInt8]? {
        guard let h = FileHandle(forReadingAtPath: path), let data = try? h.read(upToCount: 100), data.count == 100 else {
            return nil
        }
        try? h.close()
        return Array(data)
    }

    private static func isSQLite(_ path: String) -> Bool {
        header(path).map { Array($0[0..<16]) == Array("SQLite format 3\0".utf8) } ?? false
    }

    /// How a SQLite file is shorter than its header says, when it is: the page size (bytes
    /// 16–17, 1 meaning 65,536) times the page count (bytes 28–31), which is valid when bytes
    /// 92–95 equal the change counter (24–27). A file cut short loses its last pages. Not
    /// while the write-ahead log holds frames (more than its 32-byte header): a checkpoint
    /// killed part-way can leave the first page, with the new size, written before the pages
    /// that extend the file, and SQLite finishes it from the log at open.
    private static func cutShort(_ path: String) -> String? {
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        guard log <= 32, isSQLite(path), let h = header(path),
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        else { return nil }
        func be(_ at: Int, _ n: Int) -> Int { h[at..<at + n].reduce(0) { $0 << 8 | Int($1) } }
        let pageSize = be(16, 2) == 1 ? 65_536 : be(16, 2)
        guard be(92, 4) == be(24, 4), pageSize * be(28, 4) > size else { return nil }
        return "cut short: its header says \(pageSize * be(28, 4)) bytes, the file has \(size)"
    }

    /// Why the store can no longer be written, when `pushmock.db` is not the file opened at
    /// start (the data directory or the file was removed or replaced); nil while it is.
    private func vanished() -> String? {
        var now = stat()
        guard stat(path, &now) == 0 else {
            return "\(path) is gone (the data directory or the file was removed while pushmock ran)"
        }
        guard now.st_dev == opened.st_dev, now.st_ino == opened.st_ino else {
            return "\(path) was replaced by another file while pushmock ran"
        }
        return nil
    }

    /// Once a checkpoint has moved commits into `pushmock.db` (the file grew; SQLite synced it
    /// first), asks the kernel to drop the file's pages from its cache: pushmock never reads
    /// them back while it runs, and a log written for hours would otherwise fill memory with
    /// them (a container's page cache counts against its memory limit). The write-ahead log,
    /// rewritten from its start after each checkpoint, stays cached.
    private func releaseWrittenPages() {
        var now = stat()
        guard fstat(cacheFD, &now) == 0, now.st_size != cachedSize else { return }
        cachedSize = now.st_size
        _ = posix_fadvise(cacheFD, 0, 0, POSIX_FADV_DONTNEED)
    }

    /// After a full disk, once a second: when the reserve can be held again (space was
    /// freed), sends are accepted again.
    private func holdReserveAgain() {
        guard !reserve.held, Date().timeIntervalSince(reserveTried) >= 1 else { return }
        reserveTried = Date()
        guard reserve.restore() else { return }
        condition.lock()
        reserveMissing = false
        condition.unlock()
        warn("pushmock: there is room again for \(path); sends are accepted")
    }

    /// Removes a project's events through a seq inside the open transaction
    /// (`EventRows.removal`), then the commits left empty.
    private func delete(_ projectID: String, through seq: Int64) -> Bool {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, EventRows.removal, -1, &stmt, nil) == SQLITE_OK, let stmt else { return false }
        defer { sqlite3_finalize(stmt) }
        sqlite3_bind_text(stmt, 1, projectID, -1, Self.transient)
        sqlite3_bind_int64(stmt, 2, seq)
        sqlite3_bind_text(stmt, 3, "\"" + projectID + "\"", -1, Self.transient)
        return sqlite3_step(stmt) == SQLITE_DONE
            && sqlite3_exec(db, "DELETE FROM log WHERE count = 0", nil, nil, nil) == SQLITE_OK
    }

    // MARK: SQLite helpers

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func maxSeq(_ db: OpaquePointer) throws(ServerError) -> Int64 {
        guard let n = try? int(db, "SELECT coalesce(max(last_seq), 0) FROM log") else {
            throw ServerError(.store, "cannot read the store: \(message(db))")
        }
        return n
    }

    private static func exec(_ db: OpaquePointer, _ sql: String, path: String) throws(ServerError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw ServerError(.store, "\(path): \(message(db))") }
    }

    private struct QueryFailed: Error {}

    private static func int(_ db: OpaquePointer, _ sql: String) throws -> Int64 {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { throw QueryFailed() }
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW else { throw QueryFailed() }
        return sqlite3_column_int64(stmt, 0)
    }

    private static func text(_ db: OpaquePointer, _ sql: String) throws -> String {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { throw QueryFailed() }
        defer { sqlite3_finalize(stmt) }
        guard sqlite3_step(stmt) == SQLITE_ROW, let p = sqlite3_column_text(stmt, 0) else { throw QueryFailed() }
        return String(cString: p)
    }

    private static func message(_ db: OpaquePointer) -> String { String(cString: sqlite3_errmsg(db)) }
}
