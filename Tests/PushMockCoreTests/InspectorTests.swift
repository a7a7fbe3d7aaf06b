import Foundation
import Testing

@testable import PushMockCore

/// The dashboard's API: message search and detail, topics, report CSV, metrics and event
/// streams, in-process.
@Suite("Inspector, streams and metrics")
struct InspectorTests {
    func stream(_ h: Harness, _ target: String, headers: [(name: String, value: String)] = []) -> EventStream? {
        let request = Request(method: "GET", target: target, headers: headers)
        if case .stream(let s) = h.gateway.handle(request) { return s }
        return nil
    }

    @Test("messages filter by token, device, topic, label, event and text, and carry outcome counts and a summary")
    func messageFilters() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let a = try h.device("android")
        let i = try h.device("ios")
        try h.subscribe(a["id"] as! String, "news")
        try h.patch(i["id"] as! String, #"{"app_state":"terminated"}"#)
        let v1 = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send",
            body:
                #"{"message":{"token":"\#(a["token"] as! String)","notification":{"title":"Sale","body":"50% off"},"fcm_options":{"analytics_label":"promo"}}}"#,
            headers: [("Authorization", "Bearer any")])
        #expect(v1.status == 200, "\(v1.bodyText)")
        h.push(i["token"] as! String, #""content_available":true,"data":{"sync":"1"}"#)
        _ = h.send(#"{"to":"/topics/news","data":{"k":"v"}}"#)
        func ids(_ query: String) -> [String] {
            let r = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?" + query))
            return (r["messages"] as? [[String: Any]] ?? []).map { $0["summary"] as! String }
        }
        #expect(ids("") == ["data: k", "data: sync", "Sale — 50% off"])
        #expect(ids("token=\(a["token"] as! String)") == ["data: k", "Sale — 50% off"])
        #expect(ids("device=\(i["id"] as! String)") == ["data: sync"])
        #expect(ids("topic=news") == ["data: k"])
        #expect(ids("event=MESSAGE_DROPPED") == ["data: sync"])
        // "50% off": a bare "50%" also matches a legacy message id ("0:…50%…") now and then.
        #expect(ids("q=50%25%20off") == ["Sale — 50% off"])
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?event=NOPE").status == 400)
        let list = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages"))["messages"] as! [[String: Any]]
        let counts = try #require(list[1]["counts"] as? [String: Int])
        #expect(counts == ["MESSAGE_ACCEPTED": 1, "MESSAGE_DROPPED": 1])
        // Who each send reached: a send to one token names it and its device; a topic send neither.
        #expect(list[1]["token"] as? String == i["token"] as? String && list[1]["device_id"] as? String == i["id"] as? String)
        #expect(list[2]["token"] as? String == a["token"] as? String && list[2]["device_id"] as? String == a["id"] as? String)
        #expect(list[0]["token"] == nil && list[0]["device_id"] as? String == a["id"] as? String)
        #expect(ids("label=promo") == ["Sale — 50% off"])
        // Found by the fuzzer: Foundation's String.contains traps on these two.
        let form = h.send(
            "registration_id=\(a["token"] as! String)&data.city=i\u{307}", contentType: "application/x-www-form-urlencoded")
        #expect(form.bodyText.hasPrefix("id="), "\(form.bodyText)")
        #expect(ids("q=i%CC%87%00") == [])
        #expect(ids("q=i%CC%87") == ["data: city"])
        // The Token filter also takes the device's APNs token and installation id.
        #expect(ids("token=\(i["apns_token"] as! String)") == ["data: sync"])
        #expect(ids("token=\(i["fid"] as! String)") == ["data: sync"])
        // A v1 message with only a platform's notification is summed up by that notification.
        for (block, title) in [
            (#""android":{"notification":{"title":"Android only"}}"#, "Android only"),
            (#""apns":{"payload":{"aps":{"alert":{"title":"Apple only","body":"b"}}}}"#, "Apple only — b"),
            (#""webpush":{"notification":{"title":"Web only"}}"#, "Web only"),
            (#""android":{"data":{"only":"android"}}"#, "data: only"),
        ] {
            let sent = h.call(
                "POST", "/v1/projects/demo-pushmock/messages:send", body: #"{"message":{"topic":"t","# + block + "}}",
                headers: [("Authorization", "Bearer any")])
            #expect(sent.status == 200)
            #expect(ids("limit=1") == [title])
        }
    }

    @Test("one message shows its request, and per device the rendering, the fate with its reason, and a timeline")
    func messageDetail() throws {
        let h = try Harness()
        let i = try h.device("ios")
        try h.patch(i["id"] as! String, #"{"app_state":"terminated"}"#)
        let id = h.push(i["token"] as! String, #""content_available":true,"data":{"sync":"1"}"#)
        let m = json(
            h.call(
                "GET",
                "/emulator/v1/projects/demo-pushmock/messages/" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            ))
        let request = try #require(m["request"] as? [String: Any])
        #expect(request["body"] as? String != nil)
        #expect(request["method"] as? String == "POST" && request["path"] as? String == "/fcm/send")
        let headers = (request["headers"] as? [[String: String]] ?? []).map { "\($0["name"]!): \($0["value"]!)" }
        #expect(headers.contains("Authorization: key=\(Configuration.defaultServerKey)"), "\(headers)")
        #expect(headers.contains("Content-Type: application/json"), "\(headers)")
        let devices = try #require(m["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        #expect(devices[0]["fate"] as? String == "MESSAGE_DROPPED" && devices[0]["reason"] as? String == "app_terminated")
        #expect(((devices[0]["apns"] as? [String: Any])?["payload"] as? [String: Any])?["sync"] as? String == "1")
        #expect(
            (devices[0]["timeline"] as? [[String: Any]])?.map { $0["event"] as! String } == [
                "MESSAGE_ACCEPTED", "MESSAGE_DROPPED",
            ])
    }

    @Test(
        "a topic send's detail lists its first 1,000 events and devices with the totals; long lists of sends and long-polls with long lists are answered in parts"
    )
    func longAnswers() throws {
        let h = try Harness { $0.deviceRateLimit = 0 }
        let created = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices:batchCreate",
            body: #"{"platform":"android","app":"com.example.many","count":1500,"topics":["many"]}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        let sent = json(h.send(#"{"to":"/topics/many","data":{"k":"v"}}"#))
        let id = String(describing: sent["message_id"] ?? "")
        let m = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages/" + id))
        #expect((m["devices"] as? [Any])?.count == 1000 && m["devices_total"] as? Int == 1500, "\(m["devices_total"] ?? "")")
        let events = h.call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&message_id=" + id)
        #expect((m["events"] as? [Any])?.count == 1000 && m["events_total"] as? Int == json(events)["count"] as? Int)
        #expect((m["counts"] as? [String: Int])?["MESSAGE_ACCEPTED"] == 1501)
        // Every device's outcome, counted by platform, event and reason; and its devices a page at a time.
        let outcomes = try #require(m["outcomes"] as? [[String: Any]])
        #expect(outcomes.count == 1 && outcomes[0]["devices"] as? Int == 1500, "\(outcomes)")
        #expect(outcomes[0]["platform"] as? String == "android" && outcomes[0]["event"] as? String == "MESSAGE_DELIVERED")
        let page = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages/\(id)?device_offset=1490&device_limit=25"))
        let paged = try #require(page["devices"] as? [[String: Any]])
        let first = (m["devices"] as? [[String: Any]] ?? []).compactMap { $0["device_id"] as? String }
        let start = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages/\(id)?device_limit=25"))
        #expect((start["devices"] as? [[String: Any]])?.compactMap { $0["device_id"] as? String } == Array(first.prefix(25)))
        #expect(paged.count == 10 && page["devices_total"] as? Int == 1500, "\(paged.count)")
        #expect(paged.allSatisfy { !first.contains($0["device_id"] as! String) && ($0["timeline"] as? [Any])?.count == 2 })

        let one = try h.device("android")["token"] as! String
        for _ in 0..<1100 { _ = h.send(#"{"to":"\#(one)","data":{"k":"v"}}"#) }
        let list = h.gateway.handle(Request(method: "GET", target: "/emulator/v1/projects/demo-pushmock/messages?limit=5000"))
        guard case .paged(let pages) = list else {
            Issue.record("a list of 1,101 sends was rendered whole")
            return
        }
        let all = json(pages.whole())
        #expect((all["messages"] as? [Any])?.count == 1101 && all["total"] as? Int == 1101)

        // A long-poll whose list is long: parked, then answered as a stream.
        let poll = h.gateway.handle(
            Request(
                method: "GET", target: "/emulator/v1/projects/demo-pushmock/events?limit=5000&min=5000&wait=1&event=MESSAGE_OPEN")
        )
        guard case .waitForEvents(let wait) = poll else {
            Issue.record("the long-poll was not parked")
            return
        }
        guard case .stream(let stream) = h.gateway.readers.finish(wait) else {
            Issue.record("a long-poll's list of up to 5,000 events was rendered whole")
            return
        }
        #expect(stream.format == .jsonList)
    }

    @Test("events filter by reason and by the send's API, and read newest first for a log view")
    func eventFilters() throws {
        let h = try Harness { $0.acceptAnyToken = true }
        let a = try h.device("android")
        _ = h.send(#"{"to":"\#(a["token"] as! String)","data":{"k":"v"}}"#)
        _ = h.send(#"{"to":"not-a-token","data":{"k":"v"}}"#)
        let v1 = h.call(
            "POST", "/v1/projects/demo-pushmock/messages:send", body: #"{"message":{"topic":"t","data":{"k":"v"}}}"#,
            headers: [("Authorization", "Bearer any")])
        #expect(v1.status == 200)
        func events(_ query: String) -> [[String: Any]] {
            json(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?" + query))["events"] as? [[String: Any]] ?? []
        }
        #expect(events("reason=malformed_token").map { $0["event"] as? String } == ["INVALID_REGISTRATION"])
        #expect(!events("api=v1").isEmpty && events("api=v1").allSatisfy { $0["topic"] as? String == "t" })
        let all = events("").map { $0["seq"] as! Int }
        let newest = events("order=newest&limit=2").map { $0["seq"] as! Int }
        #expect(newest == Array(all.suffix(2).reversed()))
        #expect(events("order=newest&since=\(all[all.count - 2])").map { $0["seq"] as! Int } == [all.last!])
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?order=sideways").status == 400)
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?order=newest&limit=5000").status == 400)
    }

    @Test("topics list their subscribers")
    func topics() throws {
        let h = try Harness()
        for _ in 0..<3 { try h.subscribe(try h.device("android")["id"] as! String, "news") }
        try h.subscribe("d1", "sport")
        let topics = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/topics"))["topics"] as? [[String: Any]]
        #expect(topics?.map { $0["name"] as! String } == ["news", "sport"])
        #expect(topics?.first?["subscribers"] as? Int == 3 && topics?.first?["devices"] as? [String] == ["d1", "d2", "d3"])
    }

    @Test("reports export as the console's CSV, one row a day, with drop reasons as columns")
    func reportCSV() throws {
        let h = try Harness()
        let a = try h.device("android")
        h.push(a["token"] as! String, #""notification":{"title":"Hi"}"#)
        try h.patch(a["id"] as! String, #"{"app_state":"terminated"}"#)
        h.push(a["token"] as! String, #""notification":{"title":"Hi"}"#)
        let r = h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?format=csv")
        #expect(r.headers.contains { $0.value.hasPrefix("text/csv") })
        let lines = r.bodyText.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Date,Sends,Received,Impressions,Opens,") == true)
        #expect(lines.first?.hasSuffix("Dropped: app_force_stopped") == true)
        #expect(lines.count == 3 && lines[1].hasPrefix("2027-01-15,2,1,1,0,") && lines[2].hasPrefix("Total,2,1,1,0,"), "\(lines)")
        #expect(lines[2].hasSuffix(",1"))
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/reports?format=xml").status == 400)
    }

    @Test("metrics count a route and status again after others came between")
    func metricsInterleaved() throws {
        let h = try Harness()
        let token = try h.device("android")["token"] as! String
        for body in [#"{"to":"\#(token)"}"#, "{", #"{"to":"\#(token)"}"#, "{", "{", #"{"to":"\#(token)"}"#] {
            _ = h.send(body, contentType: "application/json")
            _ = h.call("GET", "/nope")
        }
        let text = h.call("GET", "/metrics").bodyText
        #expect(text.contains(#"pushmock_http_requests_total{route="POST /fcm/send",status="200"} 3"#))
        #expect(text.contains(#"pushmock_http_requests_total{route="POST /fcm/send",status="400"} 3"#))
        #expect(text.contains(#"pushmock_http_requests_total{route="unmatched",status="404"} 6"#))
    }

    @Test("metrics count requests by route and status, time them, and count events by kind and reason")
    func metrics() throws {
        let h = try Harness()
        let a = try h.device("android")
        h.push(a["token"] as! String, #""notification":{"title":"Hi"}"#)
        _ = h.send("{", contentType: "application/json")
        _ = h.call("GET", "/nope")
        let text = h.call("GET", "/metrics").bodyText
        #expect(text.contains(#"pushmock_http_requests_total{route="POST /fcm/send",status="200"} 1"#))
        #expect(text.contains(#"pushmock_http_requests_total{route="POST /fcm/send",status="400"} 1"#))
        #expect(text.contains(#"pushmock_http_requests_total{route="unmatched",status="404"} 1"#))
        #expect(text.contains("pushmock_http_request_duration_seconds_count 4"))
        #expect(text.contains(#"pushmock_messages_accepted_total{api="legacy"} 1"#))
        #expect(text.contains(#"pushmock_events_total{event="MESSAGE_DISPLAYED"} 1"#))
        #expect(text.contains(#"pushmock_devices{project="demo-pushmock",platform="android"} 1"#))
        #expect(text.contains("pushmock_event_log_events 5")) // four for the push, one for the bad request
        #expect(text.contains("# TYPE pushmock_http_request_duration_seconds histogram"))
        try h.patch(a["id"] as! String, #"{"app_state":"terminated"}"#)
        h.push(a["token"] as! String, #""notification":{"title":"Hi"}"#)
        #expect(
            h.call("GET", "/metrics").bodyText.contains(
                #"pushmock_event_reasons_total{event="MESSAGE_DROPPED",reason="app_force_stopped"} 1"#))
    }

    @Test(
        "an SSE stream starts at the next event, resumes after Last-Event-ID, filters, and thins out with a gap event under load")
    func sse() throws {
        let h = try Harness()
        let a = try h.device("android")
        h.push(a["token"] as! String, #""data":{"k":"1"}"#)
        var live = try #require(stream(h, "/emulator/v1/projects/demo-pushmock/events:stream"))
        #expect(live.head.headers.first?.value.hasPrefix("text/event-stream") == true)
        var text = String(decoding: h.gateway.readers.streamNext(&live).bytes, as: UTF8.self)
        #expect(text == "retry: 1000\n\n")
        h.push(a["token"] as! String, #""data":{"k":"2"}"#)
        text = String(decoding: h.gateway.readers.streamNext(&live).bytes, as: UTF8.self)
        #expect(text.hasPrefix("id: 3\ndata: {\"seq\":3,") && text.contains("id: 4\ndata:") && text.hasSuffix("}\n\n"))
        #expect(h.gateway.readers.streamNext(&live).bytes.isEmpty)

        var resumed = try #require(
            stream(
                h, "/emulator/v1/projects/demo-pushmock/events:stream?event=MESSAGE_DELIVERED",
                headers: [("Last-Event-ID", "1")]))
        text = String(decoding: h.gateway.readers.streamNext(&resumed).bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "id: ").count == 3 && text.contains("\"event\":\"MESSAGE_DELIVERED\""), "\(text)")

        // Under load a client gets the newest events and a gap naming what it skipped.
        for n in 0..<10 { h.push(a["token"] as! String, "\"data\":{\"n\":\"\(n)\"}") }
        let (bytes, _) = h.gateway.readers.streamNext(&live, maxEvents: 5)
        text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("event: gap\nid: 19\ndata: {\"from\":5,\"to\":19}\n\n"), "\(text.prefix(80))")
        #expect(text.components(separatedBy: "\ndata: {\"seq\"").count == 6)
        #expect(h.call("GET", "/emulator/v1/projects/demo-pushmock/events:stream?since=x").status == 400)
    }

    @Test("an export streams the log as NDJSON up to the request, in batches, then ends")
    func export() throws {
        let h = try Harness()
        let a = try h.device("android")
        for n in 0..<5 { h.push(a["token"] as! String, "\"data\":{\"n\":\"\(n)\"}") }
        var export = try #require(stream(h, "/emulator/v1/projects/demo-pushmock/events:export"))
        #expect(export.head.headers.first?.value == "application/x-ndjson")
        h.push(a["token"] as! String, #""data":{"late":"1"}"#)
        var lines: [String] = []
        var finished = false
        while !finished {
            let (bytes, done) = h.gateway.readers.streamNext(&export, maxEvents: 4)
            lines += String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            finished = done
        }
        #expect(lines.count == 10)
        let rows = lines.compactMap { json($0) as? [String: Any] }
        #expect(rows.count == 10 && rows.allSatisfy { $0["event_timestamp"] != nil && $0["project_number"] != nil })
        #expect(rows.map { $0["seq"] as! Int } == Array(1...10))
    }

    @Test("an export ends when the server's newest event is not one it matches: another project, or a filter")
    func exportEnds() throws {
        let h = try Harness()
        let a = try h.device("android")
        h.push(a["token"] as! String, #""notification":{"title":"x"}"#)
        // "other" is served on first use, with no events of its own.
        for path in [
            "/emulator/v1/projects/other/events:export",
            "/emulator/v1/projects/demo-pushmock/events:export?event=MESSAGE_ACCEPTED",
        ] {
            var export = try #require(stream(h, path))
            var finished = false
            var rounds = 0
            while !finished, rounds < 10 {
                finished = h.gateway.readers.streamNext(&export).finished
                rounds += 1
            }
            #expect(finished, "\(path) never ended")
        }
    }
}

@Suite("Retention")
struct RetentionTests {
    @Test("--max-age evicts events older than the limit on the clock's beat, counts them, and appends reuse the freed slots")
    func maxAge() throws {
        let h = try Harness {
            $0.maxAgeSeconds = 60
            $0.maxEvents = 10
        }
        let a = try h.device("android")
        h.push(a["token"] as! String, #""data":{"k":"1"}"#) // 2 events
        try h.advance(30)
        h.push(a["token"] as! String, #""data":{"k":"2"}"#)
        try h.advance(31) // the first two are now 61 s old
        #expect(try h.events().map { $0["seq"] as! Int } == [3, 4])
        #expect(h.gateway.log.evictedForAge == 2 && h.gateway.log.evictedForRoom == 0)
        for n in 0..<5 { h.push(a["token"] as! String, "\"data\":{\"n\":\"\(n)\"}") }
        #expect(try h.events().map { $0["seq"] as! Int } == Array(5...14))
        #expect(h.gateway.log.evictedForRoom == 2)
        #expect(h.call("GET", "/metrics").bodyText.contains(#"pushmock_event_log_evicted_total{cause="age"} 2"#))
        #expect(json(h.call("GET", "/emulator/v1/projects/demo-pushmock/events?count=true"))["evicted"] as? Int == 4)
    }

    @Test("durations: seconds, minutes, hours, days")
    func durations() throws {
        for (text, seconds) in [("90", 90), ("90s", 90), ("15m", 900), ("24h", 86_400), ("7d", 604_800)] {
            #expect(try Configuration.load(arguments: ["--max-age", text], environment: [:]).maxAgeSeconds == seconds)
        }
        for bad in ["0", "-5m", "soon", "3w"] {
            #expect(throws: ConfigurationError.self) { try Configuration.load(arguments: ["--max-age", bad], environment: [:]) }
        }
    }

    @Test("the message list pages with offset and says how many match, how many are kept and how many were evicted")
    func messagePages() throws {
        let h = try Harness()
        let a = try h.device("android")
        for i in 0..<7 { h.push(a["token"] as! String, #""data":{"n":"\#(i)"}"#) }
        _ = h.send(#"{"to":"/topics/news","data":{"other":"1"}}"#)
        func page(_ query: String) -> (summaries: [String], matched: Int, total: Int) {
            let r = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages?" + query))
            let list = (r["messages"] as? [[String: Any]] ?? []).map { $0["summary"] as! String }
            return (list, r["matched"] as? Int ?? -1, r["total"] as? Int ?? -1)
        }
        #expect(page("limit=3").summaries == ["data: other", "data: n", "data: n"])
        #expect(page("limit=3").matched == 8 && page("limit=3").total == 8)
        #expect(page("limit=3&offset=6").summaries.count == 2)
        #expect(page("limit=3&offset=9").summaries.isEmpty)
        let filtered = page("limit=2&offset=1&token=\(a["token"] as! String)")
        #expect(filtered.summaries.count == 2 && filtered.matched == 7 && filtered.total == 8)
    }

    @Test("deleting one message takes it out of the list and the inboxes, keeps its events in the log, and 404s after")
    func deleteOne() throws {
        let h = try Harness()
        let a = try h.device("android")
        let kept = h.push(a["token"] as! String, #""notification":{"title":"Kept"}"#)
        let gone = h.push(a["token"] as! String, #""notification":{"title":"Gone"}"#)
        let path = "/emulator/v1/projects/demo-pushmock/messages/"
        let encoded = gone.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(h.call("DELETE", path + encoded).status == 200)
        #expect(h.call("GET", path + encoded).status == 404)
        #expect(h.call("DELETE", path + encoded).status == 404)
        let list = json(h.call("GET", "/emulator/v1/projects/demo-pushmock/messages"))
        #expect((list["messages"] as? [[String: Any]])?.map { $0["summary"] as! String } == ["Kept"])
        #expect(list["total"] as? Int == 1)
        #expect(try h.inbox(a["id"] as! String).map { $0["message_id"] as! String } == [kept])
        #expect(try h.events("&message_id=\(encoded)").isEmpty == false)
    }
}
