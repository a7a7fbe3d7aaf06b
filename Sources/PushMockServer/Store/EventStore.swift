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
    }

    let path: String
    /// Everything below is guarded by `condition`'s lock.
    private let condition = NSCondition()
    private var queue: [Row] = []
    /// Set while commits fail (a full disk); the failed batch waits at the head of the queue
    /// and is retried every `commitInterval` until a commit succeeds.
    private var failure: String?
    /// The highest seq on disk.
    private var committedSeq: Int64 = 0
    private var stopping = false
    private var stopped = false
    /// Opened here, then used only by the writer thread until it ends; closed by it.
    private let db: OpaquePointer
    private let lockFD: Int32
    /// The highest seq the store held when it opened: new events are numbered after it.
    let lastStoredSeq: Int64

    /// Opens (or creates) `directory/pushmock.db`, holding `directory/pushmock.lock` for as long
    /// as the process lives: a second pushmock on the same directory is refused.
    init(directory: String) throws(ServerError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch { throw ServerError("--data-dir \(directory): cannot create it: \(error.localizedDescription)") }
        guard access(directory, W_OK) == 0 else { throw ServerError("--data-dir \(directory): not writable") }
        let fd = open(directory + "/pushmock.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ServerError("--data-dir \(directory): cannot open pushmock.lock: \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(fd)
            throw ServerError("--data-dir \(directory) is in use by another pushmock (pushmock.lock is held); give each pushmock its own data directory")
        }
        // The lock is held until the process ends (the descriptor stays open).
        lockFD = fd
        path = directory + "/pushmock.db"
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle else {
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
        let thread = Thread { [self] in writerLoop() }
        thread.name = "pushmock-store"
        thread.start()
    }

    /// Checks the file is a pushmock store (or empty), then sets it up: WAL, full sync, the table.
    private static func prepare(_ db: OpaquePointer, path: String) throws(ServerError) {
        guard let id = try? int(db, "PRAGMA application_id") else {
            throw ServerError("\(path) is not a SQLite database (corrupt, or another kind of file); move it away or choose another --data-dir")
        }
        let tables = (try? int(db, "SELECT count(*) FROM sqlite_master")) ?? 0
        if id != Int64(applicationID), tables > 0 || id != 0 {
            throw ServerError("\(path) is a SQLite database but not pushmock's (application_id \(id)); choose another --data-dir")
        }
        guard (try? text(db, "PRAGMA quick_check")) == "ok" else {
            throw ServerError("\(path) is damaged (PRAGMA quick_check failed); move it away or choose another --data-dir")
        }
        try exec(db, """
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
              project_id TEXT NOT NULL, device_id TEXT, token TEXT, reason TEXT
            );
            """, path: path)
    }

    // MARK: the loop thread

    func record(_ e: Event) {
        let m = e.message
        let row = Row(seq: e.seq, timestamp: e.time.rfc3339, projectNumber: e.projectNumber, messageID: e.messageID,
                      instanceID: e.device?.fid, messageType: e.messageType?.rawValue, platform: e.device?.platform.sdkPlatform,
                      app: e.device?.app, collapseKey: m?.options.collapseKey, priority: m?.options.priority.apnsPriority,
                      ttl: m?.options.ttl, topic: m?.topic, bulkID: m?.bulkID, event: e.kind.rawValue,
                      label: m?.options.analyticsLabel, projectID: e.projectID, deviceID: e.device?.id, token: e.token,
                      reason: e.reason)
        condition.lock()
        queue.append(row)
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

    /// Whether commits are failing (read on the loop thread before each send).
    var isFailing: Bool {
        condition.lock()
        defer { condition.unlock() }
        return failure != nil
    }

    /// Shutdown: commits what is queued and closes the database.
    func close() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    // MARK: the writer thread

    private func writerLoop() {
        var insert: OpaquePointer?
        let sql = "INSERT OR REPLACE INTO data VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        if sqlite3_prepare_v2(db, sql, -1, &insert, nil) != SQLITE_OK { setFailure("cannot prepare the insert: \(Self.message(db))") }
        while true {
            condition.lock()
            if queue.isEmpty, !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.commitInterval)) }
            let batch = queue
            queue.removeAll(keepingCapacity: true)
            let done = stopping
            condition.unlock()
            if !batch.isEmpty, let insert, !commit(batch, insert) {
                // Keep the batch: nothing is dropped while the disk is full.
                condition.lock()
                queue.insert(contentsOf: batch, at: 0)
                if !done { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.commitInterval)) }
                condition.unlock()
                if done { break }
                continue
            }
            if done { break }
        }
        sqlite3_finalize(insert)
        sqlite3_close(db)
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Commits a batch; false (and `failure` set) when it could not.
    private func commit(_ batch: [Row], _ stmt: OpaquePointer) -> Bool {
        guard sqlite3_exec(db, "BEGIN", nil, nil, nil) == SQLITE_OK else { setFailure(Self.message(db)); return false }
        for row in batch {
            Self.bind(stmt, row)
            let rc = sqlite3_step(stmt)
            sqlite3_reset(stmt)
            guard rc == SQLITE_DONE else {
                let why = Self.message(db)
                sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
                setFailure(why)
                return false
            }
        }
        guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else {
            let why = Self.message(db)
            sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            setFailure(why)
            return false
        }
        condition.lock()
        failure = nil
        committedSeq = batch.last!.seq
        condition.broadcast()
        condition.unlock()
        return true
    }

    private func setFailure(_ why: String) {
        condition.lock()
        failure = why
        condition.broadcast()
        condition.unlock()
    }

    // MARK: SQLite helpers

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ stmt: OpaquePointer, _ r: Row) {
        sqlite3_bind_int64(stmt, 1, r.seq)
        sqlite3_bind_text(stmt, 2, r.timestamp, -1, transient)
        sqlite3_bind_int64(stmt, 3, r.projectNumber)
        let texts: [(Int32, String?)] = [(4, r.messageID), (5, r.instanceID), (6, r.messageType), (7, r.platform), (8, r.app),
                                         (9, r.collapseKey), (12, r.topic), (15, r.label), (17, r.deviceID), (18, r.token), (19, r.reason)]
        for (i, v) in texts {
            if let v { sqlite3_bind_text(stmt, i, v, -1, transient) } else { sqlite3_bind_null(stmt, i) }
        }
        for (i, v) in [(Int32(10), r.priority.map(Int64.init)), (11, r.ttl.map(Int64.init)), (13, r.bulkID)] {
            if let v { sqlite3_bind_int64(stmt, i, v) } else { sqlite3_bind_null(stmt, i) }
        }
        sqlite3_bind_text(stmt, 14, r.event, -1, transient)
        sqlite3_bind_text(stmt, 16, r.projectID, -1, transient)
    }

    private static func maxSeq(_ db: OpaquePointer) throws(ServerError) -> Int64 {
        guard let n = try? int(db, "SELECT coalesce(max(seq), 0) FROM data") else { throw ServerError("cannot read the store: \(message(db))") }
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
