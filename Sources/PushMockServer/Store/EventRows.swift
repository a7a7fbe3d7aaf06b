import PushMockCore

/// How the store keeps events: each commit is one row of the table `log` holding the commit's
/// events as a JSON array of arrays, one per event, with the columns of FCM's BigQuery export
/// and pushmock's in `columns` order; the view `data` spreads them back into one row per event
/// with those column names (SQLite's `json_each`), so SQL written for the export runs
/// unchanged (docs/durable-store.md). Writing a commit is then one insert, whatever it holds:
/// the loop's only cost per event is appending its JSON.
enum EventRows {
    /// The view's columns, in the order each event's array holds them.
    static let columns = [
        "seq", "event_timestamp", "project_number", "message_id", "instance_id", "message_type", "sdk_platform", "app_name",
        "collapse_key", "priority", "ttl", "topic", "bulk_id", "event", "analytics_label", "project_id", "device_id", "token",
        "reason", "api", "time_us",
    ]

    static let schema = """
        CREATE TABLE IF NOT EXISTS log (
          first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, count INTEGER NOT NULL, events TEXT NOT NULL
        );
        CREATE VIEW IF NOT EXISTS data AS SELECT
          \(columns.enumerated().map { "e.value ->> \($0.offset) AS \($0.element)" }.joined(separator: ",\n  "))
        FROM log AS l, json_each(l.events) AS e;
        """

    /// Turns a store of schema 3 or before, whose `data` is a table of one row per event, into
    /// commits of 10,000 events (inside the caller's transaction).
    static let migration = """
        ALTER TABLE data RENAME TO data_before_log;
        \(schema.replacingOccurrences(of: "CREATE VIEW IF NOT EXISTS data", with: "CREATE VIEW IF NOT EXISTS data_unused"))
        INSERT INTO log SELECT min(seq), max(seq), count(*), json_group_array(json_array(\(columns.joined(separator: ", "))))
          FROM (SELECT * FROM data_before_log ORDER BY seq) GROUP BY seq / 10000;
        DROP TABLE data_before_log;
        DROP VIEW data_unused;
        """

    /// Appends one event as an array of the columns. `time` is its `event_timestamp`, made by
    /// the caller (events of one request share it).
    static func write(_ e: Event, time: String, to w: inout JSONWriter) {
        let m = e.message
        let d = e.device
        w.beginArray()
        w.int64(e.seq)
        w.string(time)
        w.int64(e.projectNumber)
        string(e.messageID, &w)
        string(d?.fid, &w)
        string(e.messageType?.rawValue, &w)
        string(d?.platform.sdkPlatform, &w)
        string(d?.app, &w)
        string(m?.options.collapseKey, &w)
        if let m {
            w.int(m.options.priority.apnsPriority)
            w.int(m.options.ttl)
        } else {
            w.null()
            w.null()
        }
        string(m?.topic, &w)
        if let b = m?.bulkID { w.int64(b) } else { w.null() }
        w.string(e.kind.rawValue)
        string(m?.options.analyticsLabel, &w)
        w.string(e.projectID)
        string(d?.id, &w)
        string(e.token, &w)
        string(e.reason, &w)
        string(m?.api, &w)
        w.int64(e.time)
        w.endArray()
    }

    private static func string(_ s: String?, _ w: inout JSONWriter) {
        if let s { w.string(s) } else { w.null() }
    }

    /// One event of a commit's array, as the restart needs it; nil when it is not an array of
    /// the columns (a damaged row).
    static func stored(_ v: JSONValue) -> StoredEvent? {
        guard let a = v.arrayValue, a.count == columns.count, let seq = int(a[0]), let time = int(a[20]) else { return nil }
        var e = StoredEvent(seq: seq, time: time, kind: a[13].stringValue ?? "", projectID: a[15].stringValue ?? "")
        e.messageID = a[3].stringValue
        e.messageType = a[5].stringValue
        e.collapseKey = a[8].stringValue
        e.priority = int(a[9]).map(Int.init)
        e.ttl = int(a[10]).map(Int.init)
        e.topic = a[11].stringValue
        e.bulkID = int(a[12])
        e.label = a[14].stringValue
        e.deviceID = a[16].stringValue
        e.token = a[17].stringValue
        e.reason = a[18].stringValue
        e.api = a[19].stringValue
        return e
    }

    private static func int(_ v: JSONValue) -> Int64? { v.numberValue.flatMap { Int64($0.text) } }
}
