import PushMockCore

/// How the store keeps events. Each commit is one row of the table `log` whose `events` is a
/// JSON array of groups: the events of one message on one device at one moment (a send's
/// accepted, delivered, displayed, …) share every column but their seq, event and reason, so
/// a group is those shared columns (`groupColumns`) followed by an array of `[seq, event,
/// reason]`, one per event (`PendingCommit` writes them). The view `data` spreads the groups
/// back into one row per event under the column names of FCM's BigQuery export (SQLite's
/// `json_each`, twice), so SQL written for the export runs unchanged (docs/durable-store.md).
enum EventRows {
    /// The view's columns, in order.
    static let columns = [
        "seq", "event_timestamp", "project_number", "message_id", "instance_id", "message_type", "sdk_platform", "app_name",
        "collapse_key", "priority", "ttl", "topic", "bulk_id", "event", "analytics_label", "project_id", "device_id", "token",
        "reason", "api", "time_us",
    ]
    /// A group's shared columns, in the order its array holds them; its events follow. The
    /// message's columns come first, then the device's, then the time (`event_timestamp` is
    /// made from `time_us` by the view).
    static let groupColumns = messageColumns + deviceColumns + ["time_us"]
    static let messageColumns = [
        "project_number", "message_id", "message_type", "collapse_key", "priority", "ttl", "topic", "bulk_id",
        "analytics_label", "project_id", "api",
    ]
    static let deviceColumns = ["instance_id", "sdk_platform", "app_name", "device_id", "token"]
    /// Each event's own columns, in the order its array holds them (a null reason is left out).
    static let eventColumns = ["seq", "event", "reason"]

    /// Where the view reads a column: from the event's array or from its group's.
    private static func source(_ column: String) -> String {
        if let i = eventColumns.firstIndex(of: column) { return "e.value ->> \(i)" }
        if column == "event_timestamp" { return timestamp(source("time_us")) }
        return "g.value ->> \(groupColumns.firstIndex(of: column)!)"
    }

    /// RFC 3339 in UTC with microseconds (`2026-11-01T09:30:00.000001Z`, what `Timestamp`
    /// writes) from microseconds since 1970; NULL outside the years 0000 to 9999.
    private static func timestamp(_ us: String) -> String {
        "strftime('%Y-%m-%dT%H:%M:%S', (\(us)) / 1000000, 'unixepoch') || printf('.%06dZ', (\(us)) % 1000000)"
    }

    /// Microseconds since 1970 from a stored `time_us` and `event_timestamp`: stores of the
    /// first schema gained `time_us` as 0, and keep the time only in the text.
    private static func microseconds(_ us: String, _ text: String) -> String {
        "CASE WHEN \(us) != 0 THEN \(us) ELSE unixepoch(\(text)) * 1000000 + CAST(substr(\(text), 21, 6) AS INTEGER) END"
    }

    static let schema = """
        CREATE TABLE IF NOT EXISTS log (
          first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, count INTEGER NOT NULL, events TEXT NOT NULL
        );
        CREATE VIEW IF NOT EXISTS data AS SELECT
          \(columns.map { "\(source($0)) AS \($0)" }.joined(separator: ",\n  "))
        FROM log AS l, json_each(l.events) AS g, json_each(g.value, '$[\(groupColumns.count)]') AS e;
        """

    /// One group per event, from SQL values named as the view's columns (`value(name)`).
    private static func groupPerEvent(_ value: (String) -> String) -> String {
        let shared = groupColumns.map { $0 == "time_us" ? microseconds(value($0), value("event_timestamp")) : value($0) }
            .joined(separator: ", ")
        return "json_array(\(shared), json_array(json_array(\(eventColumns.map(value).joined(separator: ", ")))))"
    }

    /// Turns a store of schema 3 or before, whose `data` is a table of one row per event, into
    /// commits of 10,000 events (inside the caller's transaction).
    static let migrationFromTable = """
        ALTER TABLE data RENAME TO data_before_log;
        \(schema.replacingOccurrences(of: "CREATE VIEW IF NOT EXISTS data", with: "CREATE VIEW IF NOT EXISTS data_unused"))
        INSERT INTO log SELECT min(seq), max(seq), count(*), json_group_array(\(groupPerEvent { $0 }))
          FROM (SELECT * FROM data_before_log ORDER BY seq) GROUP BY seq / 10000;
        DROP TABLE data_before_log;
        DROP VIEW data_unused;
        """

    /// Turns a store of schema 4, whose commits hold one array of all the view's columns per
    /// event, into groups of one event (inside the caller's transaction).
    static let migrationFromArrays = """
        DROP VIEW IF EXISTS data;
        UPDATE log SET events = (
          SELECT json_group_array(\(groupPerEvent { "e.value ->> \(columns.firstIndex(of: $0)!)" })) FROM json_each(log.events) AS e
        );
        """

    /// Removes a project's events through a seq (inside the caller's transaction): each commit
    /// holding some is rewritten without them (`?1` the project, `?2` the seq, `?3` the
    /// project quoted as JSON); the caller then deletes the commits left empty.
    static let removal: String = {
        let project = "g.value ->> \(groupColumns.firstIndex(of: "project_id")!)"
        let events = "g.value, '$[\(groupColumns.count)]'"
        let kept = "(SELECT json_group_array(json(e.value)) FROM json_each(\(events)) AS e WHERE e.value ->> 0 > ?2)"
        return """
            UPDATE log SET
              events = (
                SELECT json_group_array(json(CASE WHEN \(project) IS NOT ?1 THEN g.value
                  ELSE json_replace(g.value, '$[\(groupColumns.count)]', json(\(kept))) END))
                FROM json_each(log.events) AS g
                WHERE \(project) IS NOT ?1 OR (SELECT max(e.value ->> 0) FROM json_each(\(events)) AS e) > ?2
              ),
              count = (
                SELECT count(*) FROM json_each(log.events) AS g, json_each(\(events)) AS e
                WHERE \(project) IS NOT ?1 OR e.value ->> 0 > ?2
              )
            WHERE first_seq <= ?2 AND instr(events, ?3) > 0
            """
    }()

    /// The events of one group, as the restart needs them; nil when it is not a group as
    /// written here (a damaged row).
    static func stored(_ v: JSONValue) -> [StoredEvent]? {
        guard let g = v.arrayValue, g.count == groupColumns.count + 1, let events = g[groupColumns.count].arrayValue else {
            return nil
        }
        func column(_ name: String) -> JSONValue { g[groupIndex[name]!] }
        guard let time = int(column("time_us")) else { return nil }
        var out: [StoredEvent] = []
        for ev in events {
            guard let own = ev.arrayValue, own.count >= 2, let seq = int(own[0]), let kind = own[1].stringValue else {
                return nil
            }
            var e = StoredEvent(seq: seq, time: time, kind: kind, projectID: column("project_id").stringValue ?? "")
            e.messageID = column("message_id").stringValue
            e.messageType = column("message_type").stringValue
            e.collapseKey = column("collapse_key").stringValue
            e.priority = int(column("priority")).map(Int.init)
            e.ttl = int(column("ttl")).map(Int.init)
            e.topic = column("topic").stringValue
            e.bulkID = int(column("bulk_id"))
            e.label = column("analytics_label").stringValue
            e.deviceID = column("device_id").stringValue
            e.token = column("token").stringValue
            e.api = column("api").stringValue
            e.reason = own.count > 2 ? own[2].stringValue : nil
            out.append(e)
        }
        return out
    }

    private static func int(_ v: JSONValue) -> Int64? { v.numberValue.flatMap { Int64($0.text) } }

    private static let groupIndex = Dictionary(uniqueKeysWithValues: groupColumns.enumerated().map { ($1, $0) })
}
