import PushMockCore

/// How the store keeps events. Each commit is one row of the table `log` whose `events` is a
/// JSON array of device blocks. Consecutive events on one device share its columns, and the
/// events of one message on it at one moment (a send's accepted, delivered, displayed, …)
/// share every other column but their seq, event and reason. So a block is the device's
/// columns (`deviceColumns`) followed by an array of groups, and a group is the message's
/// columns and the time (`groupColumns`) followed by an array of `[seq, event, reason]`, one
/// per event (`PendingCommit` writes them). The view `data` spreads the blocks back into one
/// row per event under the column names of FCM's BigQuery export (SQLite's `json_each`, three
/// times), so SQL written for the export runs unchanged (docs/durable-store.md).
enum EventRows {
    /// The view's columns, in order.
    static let columns = [
        "seq", "event_timestamp", "project_number", "message_id", "instance_id", "message_type", "sdk_platform", "app_name",
        "collapse_key", "priority", "ttl", "topic", "bulk_id", "event", "analytics_label", "project_id", "device_id", "token",
        "reason", "api", "time_us",
    ]
    /// A block's device columns, in the order its array holds them; its groups follow.
    static let deviceColumns = ["instance_id", "sdk_platform", "app_name", "device_id", "token"]
    /// A group's columns, in the order its array holds them; its events follow. The
    /// message's columns, then the time (`event_timestamp` is made from `time_us` by the view).
    static let groupColumns = messageColumns + ["time_us"]
    static let messageColumns = [
        "project_number", "message_id", "message_type", "collapse_key", "priority", "ttl", "topic", "bulk_id",
        "analytics_label", "project_id", "api",
    ]
    /// Each event's own columns, in the order its array holds them (a null reason is left out).
    static let eventColumns = ["seq", "event", "reason"]

    /// The groups of a block `d`, and the events of a group `g`, as `json_each` arguments.
    private static let groupsOf = "d.value, '$[\(deviceColumns.count)]'"
    private static let eventsOf = "g.value, '$[\(groupColumns.count)]'"
    /// Every event of the commit row `log`, with its block `d` and group `g`.
    private static let eachEvent =
        "json_each(log.events) AS d, json_each(\(groupsOf)) AS g, json_each(\(eventsOf)) AS e"

    /// Where the view reads a column: from the event's array, its group's or its block's.
    private static func source(_ column: String) -> String {
        if let i = eventColumns.firstIndex(of: column) { return "e.value ->> \(i)" }
        if column == "event_timestamp" { return timestamp(source("time_us")) }
        if let i = deviceColumns.firstIndex(of: column) { return "d.value ->> \(i)" }
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
        FROM log, \(eachEvent);
        """

    /// A block of one group, from SQL values named as the view's columns (`value(name)`) and
    /// the group's events as JSON.
    private static func block(_ value: (String) -> String, events: String) -> String {
        let device = deviceColumns.map(value).joined(separator: ", ")
        let group = groupColumns.map(value).joined(separator: ", ")
        return "json_array(\(device), json_array(json_array(\(group), \(events))))"
    }

    /// A block of one event, from SQL values named as the view's columns (`value(name)`).
    private static func blockPerEvent(_ value: @escaping (String) -> String) -> String {
        let own = eventColumns.map(value).joined(separator: ", ")
        return block(
            { $0 == "time_us" ? microseconds(value($0), value("event_timestamp")) : value($0) },
            events: "json_array(json_array(\(own)))")
    }

    /// Turns a store of schema 3 or before, whose `data` is a table of one row per event, into
    /// commits of 10,000 events (inside the caller's transaction).
    static let migrationFromTable = """
        ALTER TABLE data RENAME TO data_before_log;
        \(schema.replacingOccurrences(of: "CREATE VIEW IF NOT EXISTS data", with: "CREATE VIEW IF NOT EXISTS data_unused"))
        INSERT INTO log SELECT min(seq), max(seq), count(*), json_group_array(\(blockPerEvent { $0 }))
          FROM (SELECT * FROM data_before_log ORDER BY seq) GROUP BY seq / 10000;
        DROP TABLE data_before_log;
        DROP VIEW data_unused;
        """

    /// Turns a store of schema 4, whose commits hold one array of all the view's columns per
    /// event, into blocks of one event (inside the caller's transaction).
    static let migrationFromArrays = """
        DROP VIEW IF EXISTS data;
        UPDATE log SET events = (
          SELECT json_group_array(\(blockPerEvent { "e.value ->> \(columns.firstIndex(of: $0)!)" })) FROM json_each(log.events) AS e
        );
        """

    /// Turns a store of schema 5, whose commits hold groups of the message's columns, the
    /// device's and the time followed by the events, into blocks of one group (inside the
    /// caller's transaction).
    static let migrationFromGroups: String = {
        let shared = messageColumns + deviceColumns + ["time_us"]
        let value = { (name: String) in "g.value ->> \(shared.firstIndex(of: name)!)" }
        return """
            DROP VIEW IF EXISTS data;
            UPDATE log SET events = (
              SELECT json_group_array(\(block(value, events: "json(g.value -> \(shared.count))"))) FROM json_each(log.events) AS g
            );
            """
    }()

    /// Removes a project's events through a seq (inside the caller's transaction): each commit
    /// holding some is rewritten without them, its blocks and groups left empty dropped (`?1`
    /// the project, `?2` the seq, `?3` the project quoted as JSON); the caller then deletes
    /// the commits left empty.
    static let removal: String = {
        let kept = "\(source("project_id")) IS NOT ?1 OR e.value ->> 0 > ?2"
        let keptEvents = "(SELECT json_group_array(json(e.value)) FROM json_each(\(eventsOf)) AS e WHERE \(kept))"
        let keptGroups = """
            (SELECT json_group_array(json(json_replace(g.value, '$[\(groupColumns.count)]', json(\(keptEvents)))))
              FROM json_each(\(groupsOf)) AS g WHERE EXISTS (SELECT 1 FROM json_each(\(eventsOf)) AS e WHERE \(kept)))
            """
        return """
            UPDATE log SET
              events = (
                SELECT json_group_array(json(json_replace(d.value, '$[\(deviceColumns.count)]', json(\(keptGroups)))))
                FROM json_each(log.events) AS d
                WHERE EXISTS (SELECT 1 FROM json_each(\(groupsOf)) AS g, json_each(\(eventsOf)) AS e WHERE \(kept))
              ),
              count = (SELECT count(*) FROM \(eachEvent) WHERE \(kept))
            WHERE first_seq <= ?2 AND instr(events, ?3) > 0
            """
    }()

    /// The groups of one commit's `events`, oldest first, each handed to `body` as it is read
    /// (no tree of the commit is built: a restart reads two million events). A block that is
    /// not as written here (a damaged row, a time outside the years 1 to 9999 included) is
    /// handed over as `StoredGroup.damaged` once, after any of its groups read before the
    /// damage. Throws when the commit is not JSON at all. A block's token that is the one
    /// `knownToken` gives for its device id is that String, not a copy (most are: a device's
    /// events name its token as it is). The group is the reader's own, handed over in place
    /// (not copied for each): `body` may change it; the next group's reading sets it anew.
    static func eachGroup(
        in commit: UnsafeBufferPointer<UInt8>, knownToken: (String) -> String?,
        _ body: (inout StoredGroup) -> Void
    ) throws(JSONParseError) {
        var group = StoredGroup()
        var kinds: [String] = []
        try JSONParser.reading(commit) { (p: inout JSONParser) throws(JSONParseError) in
            try p.eachElement { p, _ throws(JSONParseError) in
                try readBlock(&p, into: &group, kinds: &kinds, knownToken: knownToken, body)
            }
        }
    }

    /// One block: the device's columns, then its groups, each handed to `body`.
    private static func readBlock(
        _ p: inout JSONParser, into group: inout StoredGroup, kinds: inout [String], knownToken: (String) -> String?,
        _ body: (inout StoredGroup) -> Void
    ) throws(JSONParseError) {
        guard p.atArray() else {
            try p.skip()
            return handDamaged(body)
        }
        var deviceID: String?
        var token: String?
        var damaged = false
        var count = 0
        try p.eachElement { p, index throws(JSONParseError) in
            count += 1
            switch index {
            case Block.deviceID: deviceID = try p.readString()
            case Block.token: token = try p.readString(reusing: deviceID.flatMap(knownToken))
            case Block.groups where p.atArray():
                try p.eachElement { p, _ throws(JSONParseError) in
                    guard !damaged else { return try p.skip() }
                    group.deviceID = deviceID
                    group.token = token
                    if try readGroup(&p, into: &group, kinds: &kinds) { body(&group) } else { damaged = true }
                }
            case Block.groups:
                try p.skip()
                damaged = true
            default: try p.skip()
            }
        }
        if damaged || count != Block.groups + 1 { handDamaged(body) }
    }

    /// Hands `body` a damaged block.
    private static func handDamaged(_ body: (inout StoredGroup) -> Void) {
        var g = StoredGroup.damaged
        body(&g)
    }

    /// One group's columns and events into `g` (whose device columns are set); false when it
    /// is not as written here (the rest of it is passed).
    /// Columns that repeat from group to group (the message's, the events' kinds, the last
    /// group's in `kinds`) are held once (`readString(reusing:)`).
    private static func readGroup(
        _ p: inout JSONParser, into g: inout StoredGroup, kinds: inout [String]
    ) throws(JSONParseError) -> Bool {
        guard p.atArray() else {
            try p.skip()
            return false
        }
        g.events.removeAll(keepingCapacity: true)
        var ok = true
        var count = 0
        var time: Int64?
        try p.eachElement { p, index throws(JSONParseError) in
            count += 1
            switch index {
            case Group.messageID: g.messageID = try p.readString(reusing: g.messageID)
            case Group.messageType: g.messageType = try p.readString(reusing: g.messageType)
            case Group.collapseKey: g.collapseKey = try p.readString(reusing: g.collapseKey)
            case Group.priority: g.priority = try p.readInteger().map(Int.init)
            case Group.ttl: g.ttl = try p.readInteger().map(Int.init)
            case Group.topic: g.topic = try p.readString(reusing: g.topic)
            case Group.bulkID: g.bulkID = try p.readInteger()
            case Group.label: g.label = try p.readString(reusing: g.label)
            case Group.projectID: g.projectID = try p.readString(reusing: g.projectID) ?? ""
            case Group.api: g.api = try p.readString(reusing: g.api)
            case Group.time: time = try p.readInteger()
            case Group.events where ok && p.atArray():
                try p.eachElement { p, _ throws(JSONParseError) in
                    guard ok, p.atArray() else {
                        ok = false
                        return try p.skip()
                    }
                    var seq: Int64?
                    var kind: String?
                    var reason: String?
                    var n = 0
                    try p.eachElement { p, index throws(JSONParseError) in
                        n += 1
                        switch index {
                        case 0: seq = try p.readInteger()
                        case 1: kind = try p.readString(reusing: g.events.count < kinds.count ? kinds[g.events.count] : nil)
                        case 2: reason = try p.readString()
                        default: try p.skip()
                        }
                    }
                    guard n >= 2, let seq, let kind else {
                        ok = false
                        return
                    }
                    if g.events.count < kinds.count { kinds[g.events.count] = kind } else { kinds.append(kind) }
                    g.events.append(.init(seq: seq, kind: kind, reason: reason))
                }
            case Group.events:
                try p.skip()
                ok = false
            default: try p.skip() // project_number: the project's own
            }
        }
        guard ok, count == Group.events + 1, let time, Timestamp.representable.contains(time) else { return false }
        g.time = time
        return true
    }

    /// Where a block's array holds the columns the restart reads: literals, so the switches
    /// above compare with constants (a computed `static let` is a call per comparison).
    /// Checked against `deviceColumns` and `groupColumns` when a debug build opens a store
    /// (`layoutIsConsistent`), which every server test with `--data-dir` does.
    enum Block {
        static let deviceID = 3
        static let token = 4
        static let groups = 5
    }

    /// Where a group's array holds its columns, and its events (as `Block`).
    enum Group {
        static let messageID = 1
        static let messageType = 2
        static let collapseKey = 3
        static let priority = 4
        static let ttl = 5
        static let topic = 6
        static let bulkID = 7
        static let label = 8
        static let projectID = 9
        static let api = 10
        static let time = 11
        static let events = 12
    }

    /// Whether `Block` and `Group` say where the columns are.
    static var layoutIsConsistent: Bool {
        let block = [("device_id", Block.deviceID), ("token", Block.token)]
        let group = [
            ("message_id", Group.messageID), ("message_type", Group.messageType), ("collapse_key", Group.collapseKey),
            ("priority", Group.priority), ("ttl", Group.ttl), ("topic", Group.topic), ("bulk_id", Group.bulkID),
            ("analytics_label", Group.label), ("project_id", Group.projectID), ("api", Group.api), ("time_us", Group.time),
        ]
        return block.allSatisfy { deviceColumns.firstIndex(of: $0.0) == $0.1 } && Block.groups == deviceColumns.count
            && group.allSatisfy { groupColumns.firstIndex(of: $0.0) == $0.1 } && Group.events == groupColumns.count
    }
}
