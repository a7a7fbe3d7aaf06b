internal import CSQLite

/// A send whose events are logged before it is answered (a topic fan-out in slices): the
/// table `unanswered` holds it from before its first event to its answer, committed with the
/// events around it, so a restart after a stop in between knows to leave its events out
/// (docs/durable-store.md, "Sends cut short").
struct UnansweredMark: Sendable {
    let projectID: String
    let messageID: String
    /// Begun (inserted), or answered (deleted).
    let open: Bool

    struct Key: Hashable, Sendable {
        let projectID: String
        let messageID: String
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS unanswered (
          project_id TEXT NOT NULL, message_id TEXT NOT NULL, PRIMARY KEY (project_id, message_id)
        );
        """

    /// In the writer's transaction.
    static func write(_ m: UnansweredMark, _ db: OpaquePointer) -> Bool {
        let sql =
            m.open
            ? "INSERT OR IGNORE INTO unanswered VALUES (?1, ?2)"
            : "DELETE FROM unanswered WHERE project_id = ?1 AND message_id = ?2"
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return false }
        defer { sqlite3_finalize(stmt) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(stmt, 1, m.projectID, -1, transient)
        sqlite3_bind_text(stmt, 2, m.messageID, -1, transient)
        return sqlite3_step(stmt) == SQLITE_DONE
    }

    static func load(_ db: OpaquePointer) -> Set<Key> {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT project_id, message_id FROM unanswered", -1, &stmt, nil) == SQLITE_OK, let stmt
        else { return [] }
        defer { sqlite3_finalize(stmt) }
        var keys: Set<Key> = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            guard let p = sqlite3_column_text(stmt, 0), let m = sqlite3_column_text(stmt, 1) else { continue }
            keys.insert(Key(projectID: String(cString: p), messageID: String(cString: m)))
        }
        return keys
    }
}
