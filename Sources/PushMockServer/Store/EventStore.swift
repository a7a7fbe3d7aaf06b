internal import CSQLite
import Foundation
import Glibc
import PushMockCore

/// The durable delivery log (`--data-dir`): every event also goes to SQLite, in a table named
/// and shaped like FCM's BigQuery export (`data`, docs/durable-store.md). The loop thread only
/// copies each event into a `Row` and appends it to a queue; one writer thread commits the
/// queue in a transaction every `commitInterval` (WAL, `synchronous=FULL`, so a committed
/// event survives a crash of pushmock or of the machine).
final class EventStore: EventSink, @unchecked Sendable {
    /// The bound on how long an answered send waits to be on disk (plus the commit itself).
    static let commitInterval = 0.05
    /// `PRAGMA application_id` of a pushmock store ("psmk"), so a foreign SQLite file is refused.
    static let applicationID: Int32 = 0x7073_6D6B
    /// `PRAGMA user_version` of the current schema; older stores are migrated at open.
    static let schemaVersion: Int64 = 3

    /// One event's columns, as plain values the writer thread may read.
    struct Row: Sendable {
        let seq: Int64
        let timestamp: String
        let projectNumber: Int64
        let messageID, instanceID, messageType, platform, app, collapseKey: String?
        let priority, ttl: Int?
        let topic: String?
        let bulkID: Int64?
        let event: String
        let label: String?
        let projectID: String
        let deviceID, token, reason: String?
        let api: String?
        let timeMicros: Int64
    }

    let path: String
    /// Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var queue: [Row] = []
    /// Changed control-plane rows not yet written, oldest first (`Gateway.changedState`).
    private var pendingState: [StateRows] = []
    /// Set when the saved state came from an old store's snapshot: the first commit of rows
    /// drops it.
    private var dropSnapshot = false
    /// Projects whose events through a seq were removed, deleted after the queue's rows.
    private var removals: [(projectID: String, through: Int64)] = []
    /// Set while commits fail (a full disk with no reserve left); the failed batch waits at the
    /// head of the queue and is retried every `commitInterval` until a commit succeeds.
    private var failure: String?
    /// Set from the moment the disk reserve is not held (freed for a commit, or not there at
    /// start) until it is again: new sends are refused meanwhile.
    private var reserveMissing = false
    /// The highest seq on disk.
    private var committedSeq: Int64 = 0
    private var stopping = false
    private var stopped = false
    /// Opened and read here (at start, on the caller's thread), then used only by the writer
    /// thread from `start()` until it ends; closed by it.
    private let db: OpaquePointer
    private let lockFD: Int32
    /// Made at start, then the writer thread's.
    private var reserve: DiskReserve
    /// When the writer last tried to hold the reserve again.
    private var reserveTried = Date.distantPast
    /// Reports what the operator must know (a full disk, space back); called on any thread.
    private let warn: @Sendable (String) -> Void
    /// The highest seq the store held when it opened: new events are numbered after it.
    let lastStoredSeq: Int64

    /// Opens (or creates) `directory/pushmock.db`, holding `directory/pushmock.lock` for as long
    /// as the process lives: a second pushmock on the same directory is refused. Sets aside
    /// `reserveBytes` of disk (`DiskReserve`).
    init(directory: String, reserveBytes: Int, warn: @escaping @Sendable (String) -> Void) throws(ServerError) {
        self.warn = warn
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch { throw ServerError("--data-dir \(directory): cannot create it: \(error.localizedDescription)") }
        guard access(directory, W_OK) == 0 else { throw ServerError("--data-dir \(directory): not writable") }
        let fd = open(directory + "/pushmock.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ServerError("--data-dir \(directory): cannot open pushmock.lock: \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw ServerError(
                "--data-dir \(directory) is in use by another pushmock (pushmock.lock is held); give each pushmock its own data directory"
            )
        }
        // The lock is held until the process ends (the descriptor stays open).
        lockFD = fd
        path = directory + "/pushmock.db"
        // SQLite takes a 0-byte file for a new database: a store truncated to nothing would
        // start empty without a word.
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw ServerError("\(path) is empty (0 bytes), not the store pushmock wrote; move it away to start afresh")
        }
        try Self.keepDamagedLog(path + "-wal", warn: warn)
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let handle
        else {
            sqlite3_close(handle)
            throw ServerError("\(path): cannot open")
        }
        db = handle
        do {
            try Self.prepare(db, path: path)
            lastStoredSeq = try Self.maxSeq(db)
        } catch {
            sqlite3_close(db)
            throw error
        }
        committedSeq = lastStoredSeq
        reserve = DiskReserve(directory: directory, bytes: reserveBytes)
        if !reserve.held {
            reserveMissing = true
            warn(
                "pushmock: cannot set aside \(reserveBytes >> 20) MiB in \(directory) (--disk-reserve-mb): the disk is full; sends are answered 503 until there is room"
            )
        }
    }

    /// Starts the writer thread; from here on only it touches the database. Call after
    /// `loadState` and `loadEvents`.
    func start() {
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
                "\(wal) is damaged and a copy could not be kept (\(error.localizedDescription)); move it away to start")
        }
        let place = damage.frame == 0 ? "its header" : "frame \(damage.frame) (byte \(damage.offset))"
        warn(
            "pushmock: WARNING: \(wal) is damaged at \(place): SQLite's recovery keeps what comes before and drops the \(damage.framesAfter) frames written after it (\(damage.commitsAfter) committed transactions); the log as it was is kept in \(copy)"
        )
    }

    /// Checks the file is a pushmock store (or empty), then sets it up: WAL, full sync, the table.
    private static func prepare(_ db: OpaquePointer, path: String) throws(ServerError) {
        guard let id = try? int(db, "PRAGMA application_id") else {
            throw ServerError(
                "\(path) is not a SQLite database (corrupt, or another kind of file); move it away or choose another --data-dir")
        }
        let tables = (try? int(db, "SELECT count(*) FROM sqlite_master")) ?? 0
        if id != Int64(applicationID), tables > 0 || id != 0 {
            throw ServerError("\(path) is a SQLite database but not pushmock's (application_id \(id)); choose another --data-dir")
        }
        guard (try? text(db, "PRAGMA quick_check")) == "ok" else {
            throw ServerError("\(path) is damaged (PRAGMA quick_check failed); move it away or choose another --data-dir")
        }
        if let version = try? int(db, "PRAGMA user_version"), version > schemaVersion {
            throw ServerError(
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
        try exec(
            db,
            """
            PRAGMA user_version = \(schemaVersion);
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA application_id = \(applicationID);
            CREATE TABLE IF NOT EXISTS data (
              seq INTEGER PRIMARY KEY,
              event_timestamp TEXT NOT NULL,
              project_number INTEGER NOT NULL,
              message_id TEXT, instance_id TEXT, message_type TEXT, sdk_platform TEXT, app_name TEXT,
              collapse_key TEXT, priority INTEGER, ttl INTEGER, topic TEXT, bulk_id INTEGER,
              event TEXT NOT NULL, analytics_label TEXT,
              project_id TEXT NOT NULL, device_id TEXT, token TEXT, reason TEXT,
              api TEXT, time_us INTEGER NOT NULL
            );
            \(StateTables.schema)
            """, path: path)
    }

    // MARK: the loop thread

    func record(_ e: Event) {
        let m = e.message
        let row = Row(
            seq: e.seq, timestamp: e.time.rfc3339, projectNumber: e.projectNumber, messageID: e.messageID,
            instanceID: e.device?.fid, messageType: e.messageType?.rawValue, platform: e.device?.platform.sdkPlatform,
            app: e.device?.app, collapseKey: m?.options.collapseKey, priority: m?.options.priority.apnsPriority,
            ttl: m?.options.ttl, topic: m?.topic, bulkID: m?.bulkID, event: e.kind.rawValue,
            label: m?.options.analyticsLabel, projectID: e.projectID, deviceID: e.device?.id, token: e.token,
            reason: e.reason, api: m?.api, timeMicros: e.time)
        condition.lock()
        queue.append(row)
        condition.unlock()
    }

    func removeAll(projectID: String, through seq: Int64) {
        condition.lock()
        removals.append((projectID, seq))
        condition.unlock()
    }

    /// `--sync always`: wakes the writer and waits until everything up to `seq` is on disk.
    /// Returns false when it cannot be (the disk is full).
    func waitUntilStored(_ seq: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        condition.broadcast()
        while committedSeq < seq, failure == nil, !stopped { condition.wait() }
        return committedSeq >= seq
    }

    /// Queues changed control-plane rows for the next commit.
    func saveState(_ rows: StateRows) {
        guard !rows.isEmpty else { return }
        condition.lock()
        pendingState.append(rows)
        condition.unlock()
    }

    /// The saved state as a fixture, read at start (before the writer runs); nil when none was
    /// saved. `fromSnapshot`: an old store's single snapshot, which the caller replaces with
    /// rows by saving every row once (`Gateway.allState`).
    func loadState() throws(ServerError) -> (fixture: [UInt8], fromSnapshot: Bool)? {
        let state = try StateTables.load(db) { unreadable($0) }
        dropSnapshot = state?.fromSnapshot == true
        return state
    }

    /// A read at start that failed part-way: the file is damaged where the quick check did not look.
    private func unreadable(_ what: String, after rows: Int? = nil) -> ServerError {
        let read = rows.map { " after \($0) of them" } ?? ""
        return ServerError(
            "\(path): reading \(what) failed\(read) (\(Self.message(db))); the file is damaged: move it away or choose another --data-dir"
        )
    }

    /// The newest `limit` events, oldest first, read at start (before the writer runs).
    func loadEvents(limit: Int) throws(ServerError) -> [StoredEvent] {
        let sql = """
            SELECT seq, time_us, event, project_id, api, message_id, message_type, device_id, token, reason, collapse_key,
                   priority, ttl, topic, bulk_id, analytics_label FROM (SELECT * FROM data ORDER BY seq DESC LIMIT ?) ORDER BY seq
            """
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { throw unreadable("the events") }
        defer { sqlite3_finalize(stmt) }
        sqlite3_bind_int64(stmt, 1, Int64(limit))
        func text(_ i: Int32) -> String? { sqlite3_column_text(stmt, i).map { String(cString: $0) } }
        func int(_ i: Int32) -> Int64? { sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : sqlite3_column_int64(stmt, i) }
        var out: [StoredEvent] = []
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW {
            var e = StoredEvent(
                seq: sqlite3_column_int64(stmt, 0), time: sqlite3_column_int64(stmt, 1), kind: text(2) ?? "",
                projectID: text(3) ?? "")
            e.api = text(4)
            e.messageID = text(5)
            e.messageType = text(6)
            e.deviceID = text(7)
            e.token = text(8)
            e.reason = text(9)
            e.collapseKey = text(10)
            e.priority = int(11).map(Int.init)
            e.ttl = int(12).map(Int.init)
            e.topic = text(13)
            e.bulkID = int(14)
            e.label = text(15)
            out.append(e)
            rc = sqlite3_step(stmt)
        }
        guard rc == SQLITE_DONE else { throw unreadable("the events", after: out.count) }
        return out
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
        guard !queue.isEmpty || !pendingState.isEmpty || !removals.isEmpty else { return nil }
        let what = [
            queue.isEmpty ? nil : "\(queue.count) acknowledged events",
            pendingState.isEmpty ? nil : "the latest control-plane changes",
            removals.isEmpty ? nil : "the removal of \(removals.count) projects' events",
        ].compactMap { $0 }.joined(separator: " and ")
        return "\(what) could not be written to \(path) and are lost: \(failure ?? "the database could not be written")"
    }

    // MARK: the writer thread

    private func writerLoop() {
        var insert: OpaquePointer?
        let sql = "INSERT OR REPLACE INTO data VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        if sqlite3_prepare_v2(db, sql, -1, &insert, nil) != SQLITE_OK {
            condition.lock()
            failure = "cannot prepare the insert: \(Self.message(db))"
            condition.unlock()
        }
        while true {
            condition.lock()
            if queue.isEmpty, !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.commitInterval)) }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            let state = pendingState
            pendingState.removeAll()
            let removed = removals
            removals.removeAll()
            let done = stopping
            condition.unlock()
            if !batch.isEmpty || !state.isEmpty || !removed.isEmpty, let insert,
                let why = commit(batch, state, removed, insert)
            {
                // Keep the batch: nothing is dropped while the disk is full.
                condition.lock()
                queue.insert(contentsOf: batch, at: 0)
                pendingState.insert(contentsOf: state, at: 0)
                removals.insert(contentsOf: removed, at: 0)
                if reserve.release() {
                    // Refuse new sends from now on, and write what was answered in the space freed.
                    reserveMissing = true
                    condition.unlock()
                    warn(
                        "pushmock: the disk holding \(path) is full (\(why)); its reserve was freed to write the events already answered, and new sends are answered 503 until space is freed"
                    )
                    continue
                }
                failure = why
                condition.broadcast()
                if !done { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.commitInterval)) }
                condition.unlock()
                if done { break }
                continue
            }
            if done { break }
            holdReserveAgain()
        }
        sqlite3_finalize(insert)
        sqlite3_close(db)
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Commits a batch, then the removals (after the rows, which they may name); returns why
    /// it could not (the transaction rolled back), or nil.
    private func commit(
        _ batch: [Row], _ state: [StateRows], _ removed: [(projectID: String, through: Int64)], _ stmt: OpaquePointer
    ) -> String? {
        guard sqlite3_exec(db, "BEGIN", nil, nil, nil) == SQLITE_OK else { return Self.message(db) }
        var written = true
        for rows in state where written { written = StateTables.write(db, rows) }
        let droppingSnapshot = dropSnapshot && !state.isEmpty
        if droppingSnapshot, written { written = StateTables.dropSnapshot(db) }
        for row in batch where written {
            Self.bind(stmt, row)
            written = sqlite3_step(stmt) == SQLITE_DONE
            sqlite3_reset(stmt)
        }
        for r in removed where written { written = delete(r.projectID, through: r.through) }
        guard written, sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else {
            let why = Self.message(db)
            sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            return why
        }
        if droppingSnapshot { dropSnapshot = false }
        condition.lock()
        failure = nil
        if let last = batch.last { committedSeq = last.seq }
        condition.broadcast()
        condition.unlock()
        return nil
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

    /// Deletes a project's rows through a seq inside the open transaction.
    private func delete(_ projectID: String, through seq: Int64) -> Bool {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "DELETE FROM data WHERE project_id = ? AND seq <= ?", -1, &stmt, nil) == SQLITE_OK,
            let stmt
        else { return false }
        defer { sqlite3_finalize(stmt) }
        sqlite3_bind_text(stmt, 1, projectID, -1, Self.transient)
        sqlite3_bind_int64(stmt, 2, seq)
        return sqlite3_step(stmt) == SQLITE_DONE
    }

    // MARK: SQLite helpers

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ stmt: OpaquePointer, _ r: Row) {
        sqlite3_bind_int64(stmt, 1, r.seq)
        sqlite3_bind_text(stmt, 2, r.timestamp, -1, transient)
        sqlite3_bind_int64(stmt, 3, r.projectNumber)
        let texts: [(Int32, String?)] = [
            (4, r.messageID), (5, r.instanceID), (6, r.messageType), (7, r.platform), (8, r.app),
            (9, r.collapseKey), (12, r.topic), (15, r.label), (17, r.deviceID), (18, r.token), (19, r.reason),
        ]
        for (i, v) in texts {
            if let v { sqlite3_bind_text(stmt, i, v, -1, transient) } else { sqlite3_bind_null(stmt, i) }
        }
        for (i, v) in [(Int32(10), r.priority.map(Int64.init)), (11, r.ttl.map(Int64.init)), (13, r.bulkID)] {
            if let v { sqlite3_bind_int64(stmt, i, v) } else { sqlite3_bind_null(stmt, i) }
        }
        sqlite3_bind_text(stmt, 14, r.event, -1, transient)
        sqlite3_bind_text(stmt, 16, r.projectID, -1, transient)
        if let api = r.api { sqlite3_bind_text(stmt, 20, api, -1, transient) } else { sqlite3_bind_null(stmt, 20) }
        sqlite3_bind_int64(stmt, 21, r.timeMicros)
    }

    private static func maxSeq(_ db: OpaquePointer) throws(ServerError) -> Int64 {
        guard let n = try? int(db, "SELECT coalesce(max(seq), 0) FROM data") else {
            throw ServerError("cannot read the store: \(message(db))")
        }
        return n
    }

    private static func exec(_ db: OpaquePointer, _ sql: String, path: String) throws(ServerError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw ServerError("\(path): \(message(db))") }
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
