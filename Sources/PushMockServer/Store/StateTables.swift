internal import CSQLite
import Glibc
import PushMockCore

/// The saved control-plane state in the store: a row per project (`state_projects`) and a row
/// per device (`state_devices`, in registration order), each a piece of a `--seed` fixture,
/// written as they change (`StateRows`). Stores from before (schema version 2) kept one
/// snapshot of everything in `state`; it is read once and replaced by rows in the first commit
/// after the start. Used by `EventStore` on its thread.
enum StateTables {
    static let schema = """
        CREATE TABLE IF NOT EXISTS state_projects (id TEXT PRIMARY KEY, json BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS state_devices (
          project_id TEXT NOT NULL, id TEXT NOT NULL, json BLOB NOT NULL, PRIMARY KEY (project_id, id)
        );
        """

    /// The saved state: the projects as one fixture, each saved device's row by project (in
    /// registration order), and whether it came from an old snapshot (whose fixture holds
    /// the devices; then every row must be written, and the snapshot dropped, at the first
    /// commit); nil when nothing was saved. `fail` names what could not be read.
    static func load(_ db: OpaquePointer, fail: (String) -> ServerError) throws(ServerError) -> (
        fixture: [UInt8], devices: [String: SavedDeviceRows], fromSnapshot: Bool
    )? {
        if hasTable(db, "state") {
            var snapshot: [UInt8]?
            try each(db, "SELECT json FROM state WHERE name = 'gateway'", fail: fail("the saved state")) { stmt in
                snapshot = blob(stmt, 0)
            }
            if let snapshot { return (snapshot, [:], true) }
        }
        var projects: [StateRows.ProjectRow] = []
        try each(db, "SELECT id, json FROM state_projects ORDER BY id", fail: fail("the saved projects")) { stmt in
            projects.append(.init(id: String(cString: sqlite3_column_text(stmt, 0)), json: blob(stmt, 1)))
        }
        guard !projects.isEmpty else { return nil }
        var devices: [String: SavedDeviceRows] = [:]
        var lastProject = ""
        var rows = SavedDeviceRows()
        try each(db, "SELECT project_id, json FROM state_devices ORDER BY rowid", fail: fail("the saved devices")) { stmt in
            // Rows come by project in runs (a project's devices are mostly registered together).
            let project = UnsafeBufferPointer(start: sqlite3_column_text(stmt, 0), count: Int(sqlite3_column_bytes(stmt, 0)))
            if !lastProject.hasBytes(project) {
                if rows.count > 0 { devices[lastProject] = rows }
                lastProject = String(decoding: project, as: UTF8.self)
                rows = devices.removeValue(forKey: lastProject) ?? SavedDeviceRows()
            }
            rows.append(
                UnsafeBufferPointer(
                    start: sqlite3_column_blob(stmt, 1)?.assumingMemoryBound(to: UInt8.self),
                    count: Int(sqlite3_column_bytes(stmt, 1))))
        }
        if rows.count > 0 { devices[lastProject] = rows }
        return (StateRows.fixture(projects: projects), devices, false)
    }

    /// Writes one save's rows inside the open transaction; false when a statement failed.
    static func write(_ db: OpaquePointer, _ rows: StateRows) -> Bool {
        for id in rows.replacedProjects {
            guard run(db, "DELETE FROM state_devices WHERE project_id = ?", [.text(id)]) else { return false }
        }
        for p in rows.projects {
            let sql = "INSERT INTO state_projects VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json"
            guard run(db, sql, [.text(p.id), .blob(p.json)]) else { return false }
        }
        guard !rows.devices.isEmpty else { return true }
        var upsert: OpaquePointer?
        var delete: OpaquePointer?
        defer {
            sqlite3_finalize(upsert)
            sqlite3_finalize(delete)
        }
        let upsertSQL = """
            INSERT INTO state_devices VALUES (?, ?, ?) ON CONFLICT(project_id, id) DO UPDATE SET json = excluded.json
            """
        guard sqlite3_prepare_v2(db, upsertSQL, -1, &upsert, nil) == SQLITE_OK, let upsert,
            sqlite3_prepare_v2(db, "DELETE FROM state_devices WHERE project_id = ? AND id = ?", -1, &delete, nil)
                == SQLITE_OK, let delete
        else { return false }
        for d in rows.devices {
            let stmt = d.json == nil ? delete : upsert
            sqlite3_bind_text(stmt, 1, d.projectID, -1, transient)
            sqlite3_bind_text(stmt, 2, d.deviceID, -1, transient)
            if let json = d.json {
                json.withUnsafeBytes { _ = sqlite3_bind_blob(stmt, 3, $0.baseAddress, Int32($0.count), transient) }
            }
            let done = sqlite3_step(stmt) == SQLITE_DONE
            sqlite3_reset(stmt)
            guard done else { return false }
        }
        return true
    }

    /// Drops the old snapshot table inside the open transaction (after its rows were written).
    static func dropSnapshot(_ db: OpaquePointer) -> Bool {
        sqlite3_exec(db, "DROP TABLE IF EXISTS state", nil, nil, nil) == SQLITE_OK
    }

    // MARK: SQLite helpers

    enum Value {
        case text(String)
        case blob([UInt8])
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func run(_ db: OpaquePointer, _ sql: String, _ values: [Value]) -> Bool {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return false }
        defer { sqlite3_finalize(stmt) }
        for (i, v) in values.enumerated() {
            switch v {
            case .text(let s): sqlite3_bind_text(stmt, Int32(i + 1), s, -1, transient)
            case .blob(let b):
                b.withUnsafeBytes { _ = sqlite3_bind_blob(stmt, Int32(i + 1), $0.baseAddress, Int32($0.count), transient) }
            }
        }
        return sqlite3_step(stmt) == SQLITE_DONE
    }

    /// Every row of a query; `fail` when the read stops on an error.
    private static func each(
        _ db: OpaquePointer, _ sql: String, fail: ServerError, _ row: (OpaquePointer) -> Void
    ) throws(ServerError) {
        let failed = { (_: Int?) in fail }
        try SQLiteQuery.each(db, sql, fail: failed) { stmt in
            row(stmt)
            return true
        }
    }

    private static func blob(_ stmt: OpaquePointer, _ column: Int32) -> [UInt8] {
        guard let p = sqlite3_column_blob(stmt, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(stmt, column))))
    }

    private static func hasTable(_ db: OpaquePointer, _ name: String) -> Bool {
        var stmt: OpaquePointer?
        guard
            sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &stmt, nil) == SQLITE_OK,
            let stmt
        else { return false }
        defer { sqlite3_finalize(stmt) }
        sqlite3_bind_text(stmt, 1, name, -1, transient)
        return sqlite3_step(stmt) == SQLITE_ROW
    }
}
