internal import CSQLite

/// Reading a query's rows, for the store's reads at start (`EventStore`, `StateTables`).
enum SQLiteQuery {
    /// Steps `sql` to its end, or until `row` answers false. Throws `fail(nil)` when the query
    /// cannot be prepared, and `fail(rows read)` when a step fails part-way (a damaged file).
    static func each(
        _ db: OpaquePointer, _ sql: String, fail: (Int?) -> ServerError, _ row: (OpaquePointer) throws(ServerError) -> Bool
    ) throws(ServerError) {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { throw fail(nil) }
        defer { sqlite3_finalize(stmt) }
        var rows = 0
        var rc = sqlite3_step(stmt)
        while rc == SQLITE_ROW {
            rows += 1
            guard try row(stmt) else { return }
            rc = sqlite3_step(stmt)
        }
        guard rc == SQLITE_DONE else { throw fail(rows) }
    }
}
