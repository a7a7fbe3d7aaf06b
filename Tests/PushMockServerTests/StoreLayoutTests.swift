import Foundation
import Testing

/// The view `data` against the events API: the store writes a device's columns once per block
/// and a send's once per group, and copies a message's columns it wrote before, so every
/// column of every row is checked.
extension StoreTests {
    @Test(
        "the view data answers every column the events API answers: one token, a topic's fan-out, an unknown token, a later open, and strings that need escaping"
    )
    func viewMatchesEvents() throws {
        let dir = freshDirectory("layout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(storeFlags(dir))
        let c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let made = try c.request(
            "POST", base + "/devices:batchCreate",
            body: #"{"platform":"android","app":"com.example.app","count":3,"topics":["news"]}"#)
        #expect(made.status == 201, "\(made.text)")
        let phone = try server.device("android")
        let legacy = ["Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"]
        @discardableResult
        func send(_ body: String) throws -> String {
            let r = try c.request("POST", "/fcm/send", body: body, headers: legacy)
            #expect(r.status == 200, "\(r.text)")
            return (r.json["results"] as? [[String: Any]])?.first?["message_id"] as? String ?? ""
        }
        var first = ""
        for i in 0..<3 {
            let id = try send(
                #"{"to":"\#(phone["token"]!)","collapse_key":"line\nbreak \"\#(i)\" ✓","notification":{"title":"t"}}"#)
            if i == 0 { first = id }
        }
        // A time to live of 0: the store writes every number's digits itself, zero included.
        try send(#"{"to":"/topics/news","time_to_live":0,"priority":"normal","data":{"k":"v"}}"#)
        try send(#"{"registration_ids":["not-a-token","\#(phone["token"]!)"],"data":{"k":"v"}}"#)
        // Two sends that differ only in their ids, in one block.
        try send(#"{"to":"\#(phone["token"]!)","data":{"k":"v"}}"#)
        try send(#"{"to":"\#(phone["token"]!)","data":{"k":"v"}}"#)
        // Later, the same message on the same device: a group of its own.
        let opened = try c.request(
            "POST", base + "/devices/\(phone["id"]!)/notifications/\(first.replacingOccurrences(of: "%", with: "%25")):open",
            body: "{}")
        #expect(opened.status == 200, "\(opened.text)")
        let events = try c.request("GET", base + "/events?limit=1000").json["events"] as? [[String: Any]] ?? []
        #expect(events.count > 20)
        #expect(server.stop() == 0, "\(server.log)")

        let columns = [
            "seq", "event_timestamp", "project_number", "message_id", "instance_id", "message_type", "sdk_platform",
            "app_name", "collapse_key", "priority", "ttl", "topic", "bulk_id", "event", "analytics_label", "project_id",
            "device_id", "token", "reason",
        ]
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import json, sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                rows = c.execute('SELECT \(columns.joined(separator: ", ")) FROM data ORDER BY seq').fetchall()
                print(json.dumps([dict(zip(sys.argv[2].split(','), r)) for r in rows]))
                """, dir + "/pushmock.db", columns.joined(separator: ","),
            ])
        #expect(status == 0, "\(out)")
        let rows = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [[String: Any]] ?? []
        #expect(rows.count == events.count)
        func text(_ v: Any?) -> String {
            switch v {
            case nil, is NSNull: "null"
            case let n as NSNumber: n.stringValue
            case let s as String: s
            default: "\(v!)"
            }
        }
        for (row, event) in zip(rows, events) {
            for column in columns {
                #expect(text(row[column]) == text(event[column]), "\(column) of event \(text(event["seq"]))")
            }
        }
        #expect(rows.contains { text($0["collapse_key"]) == "line\nbreak \"2\" ✓" })
        #expect(rows.contains { text($0["topic"]) == "news" }, "\(rows.map { text($0["topic"]) })")
        #expect(rows.contains { text($0["ttl"]) == "0" && text($0["priority"]) == "5" })
        #expect(rows.contains { text($0["token"]) == "not-a-token" && text($0["reason"]) != "null" })
        #expect(rows.contains { text($0["event"]) == "MESSAGE_OPEN" && text($0["message_id"]) == first })
    }

    @Test("a restart with a smaller --max-events takes back the newest events, oldest first, the oldest commit cut")
    func restartKeepsNewest() throws {
        let dir = freshDirectory("newest")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var server = try ServerProcess(storeFlags(dir))
        let token = try server.device("android")["token"] as? String ?? ""
        var c = try HTTPConnection(port: server.port)
        for _ in 0..<5 {
            let r = try c.request(
                "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"])
            #expect(r.status == 200)
            usleep(120_000) // a commit each
        }
        let seqs = { (c: HTTPConnection) throws -> [Int] in
            (try c.request("GET", "/emulator/v1/projects/demo-pushmock/events").json["events"] as? [[String: Any]] ?? [])
                .map { $0["seq"] as? Int ?? -1 }
        }
        let all = try seqs(c)
        #expect(all.count >= 10)
        #expect(server.stop() == 0)
        server = try ServerProcess(storeFlags(dir) + ["--max-events", "7"])
        c = try HTTPConnection(port: server.port)
        #expect(try seqs(c) == Array(all.suffix(7)))
    }
}
