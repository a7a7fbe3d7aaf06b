import Foundation
import Testing

/// A helper process that prints `PORT <n>` when ready (the webhook receiver); stopped on deinit.
final class HelperProcess {
    let process = Process()
    let port: Int

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = ""
        while !line.contains("\n") {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { break }
            line += String(decoding: data, as: UTF8.self)
        }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5).prefix { $0.isNumber }) else {
            throw HTTPConnection.Failure(description: "helper did not start: \(line)")
        }
        self.port = port
    }

    deinit {
        // Foundation starts children with SIGTERM blocked, so it would not end them.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

@Suite("Delivery bridges over real sockets and processes", .serialized, .serverTestLimit)
struct BridgeServerTests {
    let auth = ["Authorization": "key=pushmock-dev-server-key"]
    let base = "/emulator/v1/projects/demo-pushmock"
    static let receiver = TLSTests.clients + "/webhook_receiver.py"

    /// Polls until `done` holds (at most `seconds`).
    func waitUntil(_ seconds: Double, _ done: () throws -> Bool) rethrows -> Bool {
        let end = Date(timeIntervalSinceNow: seconds)
        while Date() < end {
            if try done() { return true }
            usleep(100_000)
        }
        return try done()
    }

    func lines(_ file: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func attempts(_ c: HTTPConnection) throws -> [String] {
        (try c.request("GET", base + "/events?event=BRIDGE_ATTEMPT&limit=1000").json["events"] as? [[String: Any]] ?? []).map {
            $0["reason"] as? String ?? ""
        }
    }

    @Test(
        "webhooks: every delivery signed, retried on 500 and on a stall, over http and https; a dead one changes nothing for the sender"
    )
    func webhooks() throws {
        let server = try ServerProcess()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-hooks-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let plain = try HelperProcess(RealClientTests.python, [Self.receiver, "s3cret", dir + "/plain.jsonl"])
        let tls = try HelperProcess(
            RealClientTests.python,
            [
                Self.receiver, "s3cret", dir + "/tls.jsonl", ServerProcess.certDirectory + "/server.pem",
                ServerProcess.certDirectory + "/server-key.pem",
            ])
        let c = try HTTPConnection(port: server.port)
        let token =
            try c.request("POST", base + "/devices", body: #"{"platform":"android","app":"com.example.app"}"#).json["token"]
            as! String
        let hooks = [
            ("ok", "http://127.0.0.1:\(plain.port)/ok", 8, 5),
            ("flaky", "http://127.0.0.1:\(plain.port)/flaky", 5, 5),
            ("stall", "http://127.0.0.1:\(plain.port)/stall", 5, 1),
            ("tls", "https://127.0.0.1:\(tls.port)/ok", 8, 5),
            ("dead", "http://127.0.0.1:1/never", 2, 1),
        ]
        for (id, url, attempts, timeout) in hooks {
            let body =
                #"{"id":"\#(id)","webhook":{"url":"\#(url)","secret":"s3cret","max_attempts":\#(attempts),"timeout_seconds":\#(timeout)}}"#
            #expect(try c.request("POST", base + "/bridges", body: body).status == 201)
        }
        let sent = try c.request("POST", "/fcm/send", body: #"{"to":"\#(token)","notification":{"title":"Hi"}}"#, headers: auth)
        #expect(sent.status == 200 && sent.json["success"] as? Int == 1)

        // Each delivery (MESSAGE_DELIVERED, MESSAGE_DISPLAYED) reaches each live webhook until it
        // is answered 2xx: /ok once, /flaky three times, /stall twice.
        let settled = waitUntil(20) {
            let got = lines(dir + "/plain.jsonl")
            return got.filter { $0["path"] as? String == "/flaky" }.count == 6
                && got.filter { $0["path"] as? String == "/stall" }.count == 4 && lines(dir + "/tls.jsonl").count == 2
        }
        #expect(settled, "\(lines(dir + "/plain.jsonl"))")
        let all = lines(dir + "/plain.jsonl") + lines(dir + "/tls.jsonl")
        #expect(all.allSatisfy { $0["valid_signature"] as? Bool == true })
        #expect(all.allSatisfy { $0["key"] as? String == $0["delivery_id"] as? String && $0["device"] as? String == "d1" })
        #expect(all.allSatisfy { $0["received"] as? [String] == ["android"] })
        let ok = all.filter { $0["path"] as? String == "/ok" }
        #expect(
            ok.compactMap { $0["event"] as? String }.sorted() == [
                "MESSAGE_DELIVERED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_DISPLAYED",
            ])
        let flaky = all.filter { $0["path"] as? String == "/flaky" }
        #expect(flaky.compactMap { $0["attempt"] as? Int } == [1, 2, 3, 1, 2, 3])
        #expect(Set(flaky.compactMap { $0["key"] as? String }).count == 2, "the same key on every retry")

        // The log says what became of every attempt.
        #expect(waitUntil(10) { (try? attempts(c).filter { $0.hasPrefix("dead ") }.count) == 4 })
        let log = try attempts(c)
        #expect(
            log.contains { $0.hasPrefix("flaky webhook MESSAGE_DELIVERED attempt 1: HTTP 500") && $0.hasSuffix("next in 0.5 s") })
        #expect(log.contains { $0.hasPrefix("flaky webhook MESSAGE_DELIVERED attempt 3: HTTP 204") })
        #expect(log.contains { $0.hasPrefix("stall webhook MESSAGE_DELIVERED attempt 1: timed out waiting for the answer") })
        #expect(log.contains { $0.hasPrefix("tls webhook MESSAGE_DISPLAYED attempt 1: HTTP 204") })
        let dead = log.filter { $0.hasPrefix("dead ") }
        #expect(dead.allSatisfy { $0.contains("connection failed: Connection refused") }, "\(dead)")
        #expect(dead.filter { $0.hasSuffix("gave up after 2 attempts") }.count == 2)
        let stats = try c.request("GET", base + "/bridges/dead").json["stats"] as? [String: Int]
        #expect(stats?["failed"] == 2 && stats?["succeeded"] == 0 && stats?["attempts"] == 4)
        #expect(server.stop() == 0, "\(server.log)")
    }

    @Test("the Simulator: a fake xcrun first on PATH sees the exact simctl push and payload; commands log exit status and output")
    func simulatorAndCommands() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-xcrun-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let xcrun = dir + "/xcrun"
        try "#!/bin/sh\necho \"$@\" > \(dir)/args\ncp \"$5\" \(dir)/payload.json\necho pushed\n".write(
            toFile: xcrun, atomically: true, encoding: .utf8)
        chmod(xcrun, 0o755)
        let path = dir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let server = try ServerProcess(["--allow-command", "sh,sleep"], environment: ["PATH": path])
        let c = try HTTPConnection(port: server.port)
        let ios = try c.request("POST", base + "/devices", body: #"{"platform":"ios","app":"com.example.news"}"#).json
        #expect(try c.request("POST", base + "/bridges", body: #"{"device":"d1","simulator":{"udid":"booted"}}"#).status == 201)
        let command =
            #"{"device":"d1","events":["MESSAGE_DISPLAYED"],"command":{"argv":["sh","-c","cat > \#(dir)/stdin.json; echo out-$PUSHMOCK_EVENT-$PUSHMOCK_TITLE; exit 3"]}}"#
        #expect(try c.request("POST", base + "/bridges", body: command).status == 201)
        let slow = #"{"device":"d1","events":["MESSAGE_DISPLAYED"],"command":{"argv":["sleep","30"],"timeout_seconds":0.5}}"#
        #expect(try c.request("POST", base + "/bridges", body: slow).status == 201)
        let sent = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(ios["token"] as! String)","notification":{"title":"Breaking","body":"News"}}"#,
            headers: auth)
        #expect(sent.json["success"] as? Int == 1)
        #expect(waitUntil(10) { (try? attempts(c).count) == 3 })
        let log = try attempts(c)
        #expect(
            log.contains { $0.hasPrefix("b1 simulator MESSAGE_DISPLAYED attempt 1: exit 0 (") && $0.hasSuffix("): pushed") },
            "\(log)")
        #expect(
            log.contains {
                $0.hasPrefix("b2 command MESSAGE_DISPLAYED attempt 1: exit 3 (")
                    && $0.hasSuffix("): out-MESSAGE_DISPLAYED-Breaking")
            }, "\(log)")
        #expect(log.contains { $0 == "b3 command MESSAGE_DISPLAYED attempt 1: killed after 0.5 s" }, "\(log)")

        let args = try String(contentsOfFile: dir + "/args", encoding: .utf8).trimmingCharacters(in: .newlines)
            .split(separator: " ").map(String.init)
        #expect(Array(args.prefix(4)) == ["simctl", "push", "booted", "com.example.news"])
        #expect(args.count == 5 && args[4].hasSuffix(".apns"))
        let payload =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/payload.json")))
            as? [String: Any]
        #expect(payload?["Simulator Target Bundle"] as? String == "com.example.news")
        #expect((payload?["aps"] as? [String: Any])?["alert"] as? [String: String] == ["title": "Breaking", "body": "News"])
        let stdin =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/stdin.json"))) as? [String: Any]
        #expect((stdin?["event"] as? [String: Any])?["event"] as? String == "MESSAGE_DISPLAYED")
        #expect(((stdin?["received"] as? [String: Any])?["apns"] as? [String: Any])?["payload"] != nil)
        #expect(server.stop() == 0)
    }

    @Test("a command's program gets only its three standard descriptors, even while other bridge threads are making pipes")
    func commandDescriptors() throws {
        let server = try ServerProcess(["--allow-command", "ls"])
        let c = try HTTPConnection(port: server.port)
        let device = try c.request("POST", base + "/devices", body: #"{"platform":"android","app":"com.example.news"}"#).json
        let listing = #"{"device":"d1","events":["MESSAGE_DELIVERED"],"command":{"argv":["ls","/proc/self/fd"],"concurrency":4}}"#
        for _ in 0..<3 { #expect(try c.request("POST", base + "/bridges", body: listing).status == 201) }
        let sends = 20
        for _ in 0..<sends {
            let sent = try c.request(
                "POST", "/fcm/send", body: #"{"to":"\#(device["token"] as! String)","data":{"n":"1"}}"#, headers: auth)
            #expect(sent.json["success"] as? Int == 1)
        }
        #expect(waitUntil(20) { (try? attempts(c).count) == 3 * sends })
        // `ls` lists its standard descriptors and the one it opened to read the directory.
        let listed = try attempts(c).map { $0.split(separator: ": ", maxSplits: 1).last.map(String.init) ?? $0 }
        let extra = listed.filter { !$0.hasSuffix("): 0\n1\n2\n3") && !$0.hasSuffix("): 0\n1\n2\n3\n") }
        #expect(listed.count == 3 * sends && extra.isEmpty, "\(extra.prefix(3))")
        #expect(server.stop() == 0)
    }

    @Test(
        "a dead webhook's queue is bounded by bytes too: 2,500 sends of 3.5 KB turn away what passes 8 MiB, with a queue_limit of 100,000"
    )
    func queueBytes() throws {
        let server = try ServerProcess(["--device-rate-limit", "0"])
        let c = try HTTPConnection(port: server.port)
        let token = try server.device("android")["token"] as? String ?? ""
        // Port 9 refuses: the one worker waits out back-offs on the first delivery.
        let hook =
            #"{"id":"dead","queue_limit":100000,"events":["MESSAGE_DELIVERED"],"webhook":{"url":"http://127.0.0.1:9/x","max_attempts":100}}"#
        #expect(try c.request("POST", base + "/bridges", body: hook).status == 201)
        let data = String(repeating: "x", count: 3500)
        let body = #"{"to":"\#(token)","data":{"k":"\#(data)"}}"#
        for _ in 0..<2500 { #expect(try c.request("POST", "/fcm/send", body: body, headers: auth).status == 200) }
        var stats: [String: Any] = [:]
        _ = try waitUntil(2) {
            stats = try c.request("GET", base + "/bridges/dead").json["stats"] as? [String: Any] ?? [:]
            return (stats["overflowed"] as? Int ?? 0) > 0
        }
        let forwarded = stats["forwarded"] as? Int ?? 0
        #expect((stats["overflowed"] as? Int ?? 0) > 0 && forwarded + (stats["overflowed"] as? Int ?? 0) == 2500, "\(stats)")
        #expect(forwarded * 3500 <= 8 << 20 && forwarded > 500, "\(stats)")
        let overflow = try c.request("GET", base + "/events?event=BRIDGE_OVERFLOW").json["events"] as? [[String: Any]] ?? []
        #expect((overflow.first?["reason"] as? String)?.contains("not forwarded, queue full") == true, "\(overflow)")
        #expect(server.stop() == 0)
    }
}
