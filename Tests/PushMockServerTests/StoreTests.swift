import Foundation
import Testing

@Suite("--data-dir: the delivery log in SQLite", .serverTestLimit)
struct StoreTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path

    /// Sends as fast as one client can, kills the server with SIGKILL mid-stream, and waits
    /// for it to die; `run` records what was answered and when.
    func sendThenKill(_ server: ServerProcess, run: String) throws {
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                Self.clients + "/store_check.py", "load", String(server.port),
                String(server.process.processIdentifier), run,
            ])
        #expect(status == 0, "\(out)")
        server.process.waitUntilExit()
    }

    /// A pushmock on `dir`, plain port only, with no per-device limits.
    func storeFlags(_ dir: String) -> [String] { ["--data-dir", dir, "--tls-port", "off", "--device-rate-limit", "0"] }

    func freshDirectory(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-store-\(name)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        return dir
    }

    @Test(
        "kill -9 under load: every send answered more than the commit bound before the kill is in the store, which reopens cleanly and numbers on; Firebase's example queries run"
    )
    func killNine() throws {
        let dir = freshDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--device-rate-limit", "0", "--tls-port", "off"])
        let run = dir + "-run.json"
        defer { try? FileManager.default.removeItem(atPath: run) }
        try sendThenKill(server, run: run)
        #expect(server.process.terminationReason == .uncaughtSignal)

        // Restart on the same directory: it opens, and new events continue the numbering.
        let again = try ServerProcess(["--data-dir", dir, "--tls-port", "off"])
        let c = try HTTPConnection(port: again.port)
        #expect(
            try c.request(
                "POST", "/emulator/v1/projects/demo-pushmock/devices", body: #"{"platform":"ios","app":"com.example.store"}"#
            ).status == 201)
        again.stop()

        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/store_check.py", "verify", dir + "/pushmock.db", run])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect((r["due"] as? Int ?? 0) > 100, "\(out)")
        #expect(r["missing"] as? [String] == [], "\(out)")
        #expect(r["integrity"] as? String == "ok")
        #expect((r["by_type"] as? [[Any]])?.first?.first as? String == "DISPLAY_NOTIFICATION")
        #expect((r["per_day"] as? [[Any]])?.first?.last as? Int == 1)
        #expect(
            (r["fates"] as? [[Any]])?.map { $0[0] as! String } == [
                "MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_DISPLAYED", "MESSAGE_IMPRESSION",
            ])
    }

    @Test(
        "a second pushmock on the same directory, a foreign or corrupt database, and a read-only directory are refused with a clear message"
    )
    func refusals() throws {
        let dir = freshDirectory("refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--tls-port", "off"])
        func start(_ directory: String) throws -> (Int32, String) {
            try runCommand(
                ServerProcess.binary.path,
                [
                    "--port", "0", "--tls-port", "off", "--cert-dir", ServerProcess.certDirectory,
                    "--data-dir", directory,
                ])
        }
        let (s1, o1) = try start(dir)
        #expect(s1 != 0 && o1.contains("is in use by another pushmock"), "\(o1)")
        server.stop()

        let foreign = freshDirectory("foreign")
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        let (made, madeOut) = try runCommand(
            RealClientTests.python,
            [
                "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table invoices(id)'); c.commit()",
                foreign + "/pushmock.db",
            ])
        #expect(made == 0, "\(madeOut)")
        let (s2, o2) = try start(foreign)
        #expect(s2 != 0 && o2.contains("is a SQLite database but not pushmock's"), "\(o2)")

        let corrupt = freshDirectory("corrupt")
        defer { try? FileManager.default.removeItem(atPath: corrupt) }
        try FileManager.default.createDirectory(atPath: corrupt, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: corrupt + "/pushmock.db"))
        let (s3, o3) = try start(corrupt)
        #expect(s3 != 0 && o3.contains("is not a SQLite database"), "\(o3)")

        // A 0-byte database is not an empty store: SQLite would take it as one and start on less
        // than was there.
        let emptied = freshDirectory("emptied")
        defer { try? FileManager.default.removeItem(atPath: emptied) }
        try FileManager.default.createDirectory(atPath: emptied, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: emptied + "/pushmock.db", contents: Data()))
        let (s5, o5) = try start(emptied)
        #expect(s5 != 0 && o5.contains("is empty (0 bytes)"), "\(o5)")

        // A directory that holds other files and no store (a link to / once wrote the store
        // and its reserve there) is refused; a link to pushmock's own directory is said.
        let home = freshDirectory("home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: home + "/notes.txt", contents: Data("mine".utf8)))
        let link = home + "-link"
        defer { try? FileManager.default.removeItem(atPath: link) }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: home)
        let (s6, o6) = try start(link)
        #expect(s6 != 0 && o6.contains("holds other files (notes.txt) and no pushmock.db"), "\(o6)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home) == ["notes.txt"], "nothing written there")
        let (s7, o7) = try start("/")
        #expect(s7 != 0 && o7.contains("holds other files"), "\(o7)")
        try FileManager.default.removeItem(atPath: home + "/notes.txt")
        let linked = try ServerProcess(["--data-dir", link, "--tls-port", "off"])
        #expect(linked.log.contains("is a symbolic link to \(home)"), "\(linked.log)")
        linked.stop()
        #expect(try Data(contentsOf: URL(fileURLWithPath: corrupt + "/pushmock.db")) == Data(repeating: 0x42, count: 8192))

        // Read-only: a read-only bind mount in a private mount namespace (root ignores mode bits).
        let readOnly = freshDirectory("ro")
        defer { try? FileManager.default.removeItem(atPath: readOnly) }
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        let script =
            "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$2\" --port 0 --tls-port off --cert-dir \"$3\" --data-dir \"$1\""
        let unshare = ["--mount"] + (getuid() == 0 ? [] : ["--map-root-user"])
        let (s4, o4) = try runCommand(
            "/usr/bin/unshare",
            unshare + ["sh", "-c", script, "sh", readOnly, ServerProcess.binary.path, ServerProcess.certDirectory])
        #expect(s4 != 0 && o4.contains("not writable"), "\(o4)")
    }

    @Test(
        "every signal that ends pushmock ends it as SIGTERM does: 200 sends acknowledged just before it are all in the store, exit status 0",
        .serialized, arguments: [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, realTimeSignal])
    func signalsSave(_ signal: Int32) throws {
        let dir = freshDirectory("signal-\(signal)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(storeFlags(dir))
        let token = try server.device("android")["token"] as? String ?? ""
        let c = try HTTPConnection(port: server.port)
        for _ in 0..<200 {
            let r = try c.request(
                "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"])
            #expect(r.status == 200)
        }
        kill(server.process.processIdentifier, signal)
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0, "\(server.log)")

        let again = try ServerProcess(storeFlags(dir))
        let accepted = try HTTPConnection(port: again.port).request(
            "GET", "/emulator/v1/projects/demo-pushmock/events?event=MESSAGE_ACCEPTED&count=true")
        #expect(accepted.json["count"] as? Int == 200, "signal \(signal): \(accepted.text)")
    }
}

extension StoreTests {
    @Test(
        "the image's layout: the certificate directory inside an empty data directory is pushmock's own, at the first start and the next"
    )
    func certificatesInDataDirectory() throws {
        let dir = freshDirectory("image-layout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for start in 1...2 {
            // The flags after ServerProcess's own --cert-dir win, as PUSHMOCK_CERT_DIR=/data/certs
            // and PUSHMOCK_DATA_DIR=/data do in the image.
            let server = try ServerProcess(["--cert-dir", dir + "/certs", "--data-dir", dir])
            let health = try HTTPConnection(port: server.port).request("GET", "/healthz")
            #expect(health.status == 200, "start \(start): \(server.log)")
            server.stop()
        }
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(entries.contains("certs") && entries.contains("pushmock.db"), "\(entries)")
    }
}

extension StoreTests {
    // Its work is delivery and the store, not memory safety: left out of the sanitizer's run,
    // where its 100,000 devices starve the tests beside it.
    @Test(
        "a fan-out killed before it was answered: the restart leaves its events out and says so; one answered comes back whole",
        .enabled(if: !ServerProcess.isSanitized))
    func cutShortFanOut() throws {
        let dir = freshDirectory("cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(storeFlags(dir))
        let c = try HTTPConnection(port: server.port, timeout: 120)
        let base = "/emulator/v1/projects/demo-pushmock"
        for (topic, count) in [("small", 3000), ("big", 100_000)] {
            let made = try c.request(
                "POST", base + "/devices:batchCreate",
                body: #"{"platform":"android","app":"com.example.load","count":\#(count),"topics":["\#(topic)"]}"#)
            #expect(made.status == 201, "\(made.text)")
        }
        let auth = ["Authorization": "key=pushmock-dev-server-key"]
        let small = try c.request("POST", "/fcm/send", body: #"{"to":"/topics/small","data":{"k":"v"}}"#, headers: auth)
        let smallID = small.text.filter(\.isNumber)
        // Its answered mark, like its last events, is on disk within the commit bound.
        usleep(300_000)
        // The big one: sent, and the process killed while it fans out, before its answer: as
        // soon as the store holds its mark (and so its first events), a poller kills it.
        let poller = Process()
        poller.executableURL = URL(fileURLWithPath: RealClientTests.python)
        poller.arguments = [
            "-c",
            """
            import os, signal, sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], timeout=10)
            end = time.monotonic() + 60
            while time.monotonic() < end:
                if c.execute("SELECT count(*) FROM unanswered").fetchone()[0]:
                    os.kill(int(sys.argv[2]), signal.SIGKILL)
                    break
                time.sleep(0.002)
            """, dir + "/pushmock.db", String(server.process.processIdentifier),
        ]
        try poller.run()
        let body = #"{"to":"/topics/big","data":{"k":"v"}}"#
        try c.write(
            "POST /fcm/send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: key=pushmock-dev-server-key\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        poller.waitUntilExit()
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .uncaughtSignal, "killed before the answer")

        let again = try ServerProcess(storeFlags(dir))
        #expect(again.log.contains("cut short by the last stop before it was answered"), "\(again.log)")
        let a = try HTTPConnection(port: again.port)
        let topics = try a.request("GET", base + "/messages?limit=10").json["messages"] as? [[String: Any]] ?? []
        #expect(topics.compactMap { $0["topic"] as? String } == ["small"], "only the answered fan-out is a send: \(topics)")
        let smallEvents = try a.request("GET", base + "/events?message_id=\(smallID)&event=MESSAGE_ACCEPTED&count=true")
        #expect(smallEvents.json["count"] as? Int == 3001, "\(smallEvents.text)")
        let accepted = try a.request("GET", base + "/events?event=MESSAGE_ACCEPTED&count=true").json["count"] as? Int
        #expect(accepted == 3001, "the cut-short send's events are left out")
    }
}

/// A real-time signal, whose number glibc decides at run time.
let realTimeSignal = __libc_current_sigrtmin() + 1

extension StoreTests {
    /// Runs full_disk.sh in a mount namespace; returns the client's findings and pushmock's end.
    private func fullDisk(_ mode: String) throws -> (client: [String: Any], exit: Int, said: String, out: String) {
        let unshare = ["--mount"] + (getuid() == 0 ? [] : ["--map-root-user"])
        let (status, out) = try runCommand(
            "/usr/bin/unshare",
            unshare + [
                "sh", Self.clients + "/full_disk.sh", ServerProcess.binary.path,
                ServerProcess.certDirectory, RealClientTests.python, mode,
            ])
        #expect(status == 0, "\(out)")
        let lines = out.split(separator: "\n").filter { $0.hasPrefix("{") }
        let client =
            lines.count >= 2
            ? (try? JSONSerialization.jsonObject(with: Data(lines[lines.count - 2].utf8))) as? [String: Any] ?? [:] : [:]
        let end = lastJSON(out)
        return (client, end["exit"] as? Int ?? -1, end["said"] as? String ?? "", out)
    }

    @Test(
        "a full disk with no reserve: new sends get the services' 503 with Retry-After, reads go on, what was stored stays intact, and SIGTERM exits non-zero saying what was lost"
    )
    func fullDiskNoReserve() throws {
        let (r, exit, said, out) = try fullDisk("no-reserve")
        #expect(exit != 0, "\(out)")
        #expect(said.contains("acknowledged events") && said.contains("could not be written"), "\(out)")
        #expect((r["accepted"] as? Int ?? 0) > 10, "\(out)")
        let legacy = r["legacy"] as? [Any]
        #expect(legacy?[0] as? Int == 503 && legacy?[1] as? String == "10", "\(out)")
        #expect((r["v1"] as? [Any])?[0] as? Int == 503 && (r["v1"] as? [Any])?[1] as? String == "UNAVAILABLE")
        #expect((r["reads"] as? [Any])?[0] as? Int == 200 && r["health"] as? Int == 200)
        #expect(r["integrity"] as? String == "ok")
        #expect((r["stored"] as? Int ?? 0) > 0)
    }

    @Test(
        "a full disk with --sync always and a reserve: every answered send is on disk, a 503 leaves no trace, a device changed meanwhile is saved, SIGTERM loses nothing, and sends resume once space is freed"
    )
    func fullDiskReserve() throws {
        let (r, exit, said, out) = try fullDisk("reserve")
        #expect(exit == 0, "\(out)")
        #expect(said.contains("reserve was freed") && said.contains("room again"), "\(out)")
        let accepted = r["accepted"] as? Int ?? 0
        #expect(accepted > 10, "\(out)")
        #expect((r["legacy"] as? [Any])?[0] as? Int == 503, "\(out)")
        #expect(r["events_added_by_503"] as? Int == 0, "\(out)")
        #expect((r["v1"] as? [Any])?[0] as? Int == 503, "\(out)")
        #expect(r["after_space_freed"] as? Int == 200, "\(out)")
        #expect(r["stored"] as? Int == accepted, "\(out)")
        #expect(r["stored_events"] as? Int == r["answered_events"] as? Int, "\(out)")
        #expect(r["integrity"] as? String == "ok")
        #expect(r["patched"] as? Int == 200 && r["state_saved"] as? Bool == true, "\(out)")
    }
}

extension StoreTests {
    @Test("--sync always: every send answered before a kill -9 is on disk, up to the last one")
    func syncAlways() throws {
        let dir = freshDirectory("sync")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(["--data-dir", dir, "--sync", "always", "--device-rate-limit", "0", "--tls-port", "off"])
        let run = dir + "-run.json"
        defer { try? FileManager.default.removeItem(atPath: run) }
        try sendThenKill(server, run: run)
        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/store_check.py", "verify", dir + "/pushmock.db", run, "0"])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect((r["due"] as? Int ?? 0) > 20 && r["due"] as? Int == r["answered"] as? Int, "\(out)")
        #expect(r["missing"] as? [String] == [], "\(out)")
    }
}

extension StoreTests {
    @Test(
        "a restart resumes: devices with their ids, tokens, states and topics, apps, APNs keys, service accounts and the log come back"
    )
    func restart() throws {
        let dir = freshDirectory("restart")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var server = try ServerProcess(["--data-dir", dir, "--tls-port", "off"])
        var c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let gone = try server.device("android")
        let phone = try server.device("android")
        let iphone = try server.device("ios")
        #expect(try c.request("DELETE", base + "/devices/\(gone["id"]!)").status == 200)
        #expect(
            try c.request("PATCH", base + "/devices/\(iphone["id"]!)", body: #"{"app_state":"foreground","online":false}"#).status
                == 200)
        #expect(try c.request("POST", base + "/devices/\(phone["id"]!)/topics/news").status == 200)
        let key = try c.request("POST", base + "/apnsKeys", body: "{}").json
        let account = try c.request("GET", base + "/serviceAccount").json
        let sent = try c.request(
            "POST", "/fcm/send", body: #"{"to":"/topics/news","notification":{"title":"before"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"])
        #expect(sent.status == 200)
        let before = try c.request("GET", base + "/events").json["events"] as? [[String: Any]] ?? []
        // What identifies and configures each device (inboxes and timestamps start afresh).
        func devices(_ c: HTTPConnection) throws -> [String] {
            let list = try c.request("GET", base + "/devices").json["devices"] as? [[String: Any]] ?? []
            return list.map { d in
                [
                    "id", "platform", "app", "token", "fid", "apns_token", "apns_environment", "topics", "app_state", "online",
                    "notifications",
                ]
                .map { "\(d[$0] ?? "nil")" }.joined(separator: "|")
            }
        }
        let devicesBefore = try devices(c)
        #expect(devicesBefore.count == 2)
        server.stop()

        server = try ServerProcess(["--data-dir", dir, "--tls-port", "off"])
        c = try HTTPConnection(port: server.port)
        #expect(try devices(c) == devicesBefore)
        let after = try c.request("GET", base + "/events").json["events"] as? [[String: Any]] ?? []
        #expect(after.map { $0["seq"] as! Int } == before.map { $0["seq"] as! Int } && !after.isEmpty)
        #expect(after.map { $0["event"] as! String } == before.map { $0["event"] as! String })
        let keys = try c.request("GET", base + "/apnsKeys").json["keys"] as? [[String: Any]]
        #expect(keys?.first?["key_id"] as? String == key["key_id"] as? String)
        // The service account issued before the restart still gets tokens (google-auth signs with its key).
        let file = dir + "-sa.json"
        var moved = account
        moved["token_uri"] = "http://127.0.0.1:\(server.port)/token" // the new process listens elsewhere
        try JSONSerialization.data(withJSONObject: moved).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import sys
                from google.oauth2 import service_account
                from google.auth.transport.requests import Request
                c = service_account.Credentials.from_service_account_file(sys.argv[1], scopes=["https://www.googleapis.com/auth/firebase.messaging"])
                c.refresh(Request())
                print("token", bool(c.token))
                """, file,
            ])
        #expect(status == 0 && out.contains("token True"), "\(out)")
        // Old tokens and subscriptions work; new events and devices number on.
        let again = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(phone["token"]!)","data":{"k":"after"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"])
        #expect(again.text.contains(#""success":1"#), "\(again.text)")
        let newest =
            try c.request("GET", base + "/events?since=\(before.last?["seq"] as? Int ?? 0)").json["events"] as? [[String: Any]]
        #expect((newest?.first?["seq"] as? Int ?? 0) == (before.last?["seq"] as? Int ?? 0) + 1)
        #expect(try server.device("android")["id"] as? String == "d4")
    }
}

extension StoreTests {
    @Test("a store from the first schema (no api or time_us columns, no state table) is migrated in place and keeps its rows")
    func migration() throws {
        let dir = freshDirectory("migrate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (made, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.executescript('''PRAGMA application_id = 1886612843;
                  CREATE TABLE data (seq INTEGER PRIMARY KEY, event_timestamp TEXT NOT NULL, project_number INTEGER NOT NULL,
                    message_id TEXT, instance_id TEXT, message_type TEXT, sdk_platform TEXT, app_name TEXT, collapse_key TEXT,
                    priority INTEGER, ttl INTEGER, topic TEXT, bulk_id INTEGER, event TEXT NOT NULL, analytics_label TEXT,
                    project_id TEXT NOT NULL, device_id TEXT, token TEXT, reason TEXT);
                  INSERT INTO data (seq, event_timestamp, project_number, event, project_id)
                    VALUES (7, '2026-11-01T00:00:00.000000Z', 1, 'MESSAGE_ACCEPTED', 'demo-pushmock');''')
                c.commit()
                """, dir + "/pushmock.db",
            ])
        #expect(made == 0, "\(out)")
        let server = try ServerProcess(["--data-dir", dir, "--tls-port", "off"])
        let phone = try server.device("android")
        let c = try HTTPConnection(port: server.port)
        let sent = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(phone["token"]!)","data":{"k":"v"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key", "Content-Type": "application/json"])
        #expect(sent.text.contains(#""success":1"#), "\(sent.text)")
        let seqs = (try c.request("GET", "/emulator/v1/projects/demo-pushmock/events").json["events"] as? [[String: Any]] ?? [])
            .map { $0["seq"] as! Int }
        #expect(seqs.first == 7 && (seqs.dropFirst().first ?? 0) == 8, "\(seqs)")
        server.stop()
        let (_, rows) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*), min(seq) from data').fetchone(), c.execute('pragma user_version').fetchone()[0], c.execute('select event_timestamp, time_us from data where seq = 7').fetchone())",
                dir + "/pushmock.db",
            ])
        // The first schema's rows gained time_us as 0: it is made from their event_timestamp.
        #expect(rows.contains("7) 6 ('2026-11-01T00:00:00.000000Z', 1793491200000000)"), "\(rows)")
    }
}

extension StoreTests {
    /// The same three events as a commit of schema 4 (one array of the view's columns per
    /// event) and of schema 5 (groups: the message's columns, the device's, the time, then
    /// `[seq, event, reason]` per event).
    static let oldCommits: [Int: String] = [
        4:
            """
        [[7,"2026-11-01T00:00:00.000001Z",1,"m1","f1","DISPLAY_NOTIFICATION","ANDROID","com.example.app",null,10,2419200,null,null,"MESSAGE_ACCEPTED",null,"demo-pushmock","d1","t1",null,"legacy",1793491200000001],
         [8,"2026-11-01T00:00:00.000001Z",1,"m1","f1","DISPLAY_NOTIFICATION","ANDROID","com.example.app",null,10,2419200,null,null,"MESSAGE_DROPPED",null,"demo-pushmock","d1","t1","app_force_quit","legacy",1793491200000001],
         [9,"2026-11-01T00:00:01.000000Z",2,"m2",null,"DATA_MESSAGE",null,null,"ck",5,60,"/topics/news",3,"MESSAGE_ACCEPTED","lbl","other",null,null,null,"v1",1793491201000000]]
        """,
        5:
            """
        [[1,"m1","DISPLAY_NOTIFICATION",null,10,2419200,null,null,null,"demo-pushmock","legacy","f1","ANDROID","com.example.app","d1","t1",1793491200000001,[[7,"MESSAGE_ACCEPTED"],[8,"MESSAGE_DROPPED","app_force_quit"]]],
         [2,"m2","DATA_MESSAGE","ck",5,60,"/topics/news",3,"lbl","other","v1",null,null,null,null,null,1793491201000000,[[9,"MESSAGE_ACCEPTED"]]]]
        """,
    ]

    @Test(
        "a store from schema 4 (an array of every column per event) or 5 (groups) is migrated to blocks: its events read the same, come back at a restart, and one project's removal keeps another's",
        arguments: [4, 5])
    func oldLayoutMigration(version: Int) throws {
        let dir = freshDirectory("layout\(version)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = dir + "/pushmock.db"
        let events = Self.oldCommits[version]!
        let (made, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.executescript('''PRAGMA application_id = 1886612843; PRAGMA user_version = \(version);
                  CREATE TABLE log (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, count INTEGER NOT NULL, events TEXT NOT NULL);
                  CREATE VIEW data AS SELECT e.value ->> 0 AS seq FROM log AS l, json_each(l.events) AS e;''')
                c.execute("INSERT INTO log VALUES (7, 9, 3, ?)", (sys.argv[2],))
                c.commit()
                """, db, events,
            ])
        #expect(made == 0, "\(out)")
        let columns = """
            seq, event_timestamp, project_number, message_id, instance_id, message_type, sdk_platform, app_name, collapse_key,
            priority, ttl, topic, bulk_id, event, analytics_label, project_id, device_id, token, reason, api, time_us
            """
        let expected = """
            7 2026-11-01T00:00:00.000001Z 1 m1 f1 DISPLAY_NOTIFICATION ANDROID com.example.app None 10 2419200 None None MESSAGE_ACCEPTED None demo-pushmock d1 t1 None legacy 1793491200000001
            8 2026-11-01T00:00:00.000001Z 1 m1 f1 DISPLAY_NOTIFICATION ANDROID com.example.app None 10 2419200 None None MESSAGE_DROPPED None demo-pushmock d1 t1 app_force_quit legacy 1793491200000001
            9 2026-11-01T00:00:01.000000Z 2 m2 None DATA_MESSAGE None None ck 5 60 /topics/news 3 MESSAGE_ACCEPTED lbl other None None None v1 1793491201000000
            """
        var server = try ServerProcess(storeFlags(dir))
        let restored = try HTTPConnection(port: server.port).request("GET", "/emulator/v1/projects/demo-pushmock/events").json
        let kinds = (restored["events"] as? [[String: Any]] ?? []).map {
            "\($0["seq"] ?? "") \($0["event"] ?? "") \($0["reason"] as? String ?? "-")"
        }
        #expect(kinds == ["7 MESSAGE_ACCEPTED -", "8 MESSAGE_DROPPED app_force_quit"], "\(restored)")
        #expect(server.stop() == 0)
        #expect(try query(db, "PRAGMA user_version") == "6")
        #expect(try query(db, "SELECT \(columns) FROM data ORDER BY seq") == expected)
        server = try ServerProcess(storeFlags(dir))
        #expect(
            try HTTPConnection(port: server.port).request("DELETE", "/emulator/v1/projects/demo-pushmock/messages").status == 200)
        #expect(server.stop() == 0)
        #expect(
            try query(db, "SELECT \(columns) FROM data ORDER BY seq") == expected.split(separator: "\n").last.map(String.init))
        #expect(try query(db, "SELECT first_seq, count FROM log") == "7 1")
    }
}

extension StoreTests {
    @Test("a project's cleared messages and its reset remove its events from the store too: they do not come back at a restart")
    func removalsAreDurable() throws {
        let dir = freshDirectory("removals")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flags = storeFlags(dir)
        var server = try ServerProcess(flags)
        let token = try server.device("android")["token"] as! String
        func send() throws {
            let r = try HTTPConnection(port: server.port).request(
                "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"])
            #expect(r.status == 200)
        }
        func count() throws -> Int {
            try HTTPConnection(port: server.port).request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true")
                .json["count"] as? Int ?? -1
        }
        func call(_ method: String, _ path: String) throws -> Int {
            try HTTPConnection(port: server.port).request(method, "/emulator/v1/projects/demo-pushmock" + path).status
        }
        try send()
        let perSend = try count()
        #expect(perSend > 0)
        #expect(try call("DELETE", "/messages") == 200)
        try send()
        #expect(try count() == perSend)
        #expect(server.stop() == 0)
        server = try ServerProcess(flags)
        #expect(try count() == perSend, "only the send after the clear: \(server.log)")
        #expect(try call("DELETE", "") == 200)
        #expect(server.stop() == 0)
        server = try ServerProcess(flags)
        #expect(try count() == 0, "\(server.log)")
    }
}

extension StoreTests {
    /// SQL against a store from Python's sqlite3, one value a line.
    func query(_ db: String, _ sql: String) throws -> String {
        let (status, out) = try runCommand(
            RealClientTests.python,
            ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r) for r in c.execute(sys.argv[2])]", db, sql])
        guard status == 0 else { throw ServerProcess.StartFailure(description: out) }
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Bytes the process wrote to storage so far (`write_bytes` in /proc/PID/io).
    func writtenBytes(_ server: ServerProcess) throws -> Int {
        let io = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/io", encoding: .utf8)
        let line = io.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    @Test(
        "the saved state is a row per device: changing one of 20,000 devices writes that row, not all of them, and a restart resumes from the rows"
    )
    func incrementalState() throws {
        let dir = freshDirectory("rows")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/pushmock.db"
        var server = try ServerProcess(storeFlags(dir))
        var c = try HTTPConnection(port: server.port)
        let base = "/emulator/v1/projects/demo-pushmock"
        let made = try c.request(
            "POST", base + "/devices:batchCreate",
            body: #"{"platform":"android","app":"com.example.app","count":20000,"topics":["all"]}"#)
        #expect(made.status == 201, "\(made.text)")
        // Saved 20,000 devices a step, every 100 ms, then committed.
        var saved = ""
        for _ in 0..<100 where saved != "20000" {
            Thread.sleep(forTimeInterval: 0.1)
            saved = try query(db, "SELECT count(*) FROM state_devices")
        }
        #expect(saved == "20000")
        Thread.sleep(forTimeInterval: 0.5)
        let before = try writtenBytes(server)
        for state in ["foreground", "background", "terminated", "background", "foreground"] {
            #expect(try c.request("PATCH", base + "/devices/d123", body: #"{"app_state":"\#(state)"}"#).status == 200)
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: 0.3)
        let written = try writtenBytes(server) - before
        // Five saves of one ~300-byte row: a few pages of the write-ahead log each. All
        // 20,000 rows are about 7 MB.
        #expect(written > 0 && written < 400_000, "\(written) bytes written for five single-device changes")
        #expect(try query(db, "SELECT json FROM state_devices WHERE id = 'd123'").contains(#""app_state":"foreground""#))
        #expect(server.stop() == 0)

        server = try ServerProcess(storeFlags(dir))
        c = try HTTPConnection(port: server.port)
        let info = try c.request("GET", base).json
        #expect(info["devices"] as? Int == 20000)
        let d = try c.request("GET", base + "/devices/d123").json
        #expect(d["app_state"] as? String == "foreground" && d["topics"] as? [String] == ["all"])
        #expect(try query(db, "SELECT count(*) FROM sqlite_master WHERE name = 'state'") == "0")
    }

    @Test("a store from schema 2 (one snapshot of the whole state) is migrated: its state comes back and is saved as rows")
    func snapshotMigration() throws {
        let dir = freshDirectory("snapshot")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = dir + "/pushmock.db"
        let snapshot =
            #"{"projects":[{"id":"demo-pushmock","devices":[{"id":"d7","platform":"android","app":"com.example.old","topics":["news"]}]},{"id":"other","devices":[]}]}"#
        let (made, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                c.executescript('''PRAGMA application_id = 1886612843; PRAGMA user_version = 2;
                  CREATE TABLE data (seq INTEGER PRIMARY KEY, event_timestamp TEXT NOT NULL, project_number INTEGER NOT NULL,
                    message_id TEXT, instance_id TEXT, message_type TEXT, sdk_platform TEXT, app_name TEXT, collapse_key TEXT,
                    priority INTEGER, ttl INTEGER, topic TEXT, bulk_id INTEGER, event TEXT NOT NULL, analytics_label TEXT,
                    project_id TEXT NOT NULL, device_id TEXT, token TEXT, reason TEXT, api TEXT, time_us INTEGER NOT NULL);
                  CREATE TABLE state (name TEXT PRIMARY KEY, json BLOB NOT NULL);''')
                c.execute("INSERT INTO state VALUES ('gateway', ?)", (sys.argv[2].encode(),))
                c.commit()
                """, db, snapshot,
            ])
        #expect(made == 0, "\(out)")
        var server = try ServerProcess(storeFlags(dir))
        var c = try HTTPConnection(port: server.port)
        let d7 = try c.request("GET", "/emulator/v1/projects/demo-pushmock/devices/d7").json
        #expect(d7["app"] as? String == "com.example.old" && d7["topics"] as? [String] == ["news"], "\(d7)")
        #expect(server.stop() == 0)
        #expect(try query(db, "SELECT count(*) FROM sqlite_master WHERE name = 'state'") == "0")
        #expect(try query(db, "SELECT project_id, id FROM state_devices") == "demo-pushmock d7")
        #expect(try query(db, "SELECT id FROM state_projects ORDER BY id") == "demo-pushmock\nother")
        #expect(try query(db, "PRAGMA user_version") == "6")
        // And from the rows again.
        server = try ServerProcess(storeFlags(dir))
        c = try HTTPConnection(port: server.port)
        #expect(try c.request("GET", "/emulator/v1/projects/demo-pushmock/devices/d7").json["topics"] as? [String] == ["news"])
    }

    @Test("a store written by a newer pushmock is refused with a message that says so")
    func newerStore() throws {
        let dir = freshDirectory("newer")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (made, out) = try runCommand(
            RealClientTests.python,
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript('PRAGMA application_id = 1886612843; PRAGMA user_version = 9; CREATE TABLE data (seq INTEGER PRIMARY KEY);'); c.commit()",
                dir + "/pushmock.db",
            ])
        #expect(made == 0, "\(out)")
        #expect(throws: ServerProcess.StartFailure.self) { try ServerProcess(storeFlags(dir)) }
        let (status, said) = try runShell(
            "'\(ServerProcess.binary.path)' --port 0 --tls-port off --data-dir '\(dir)'", log: dir + "/out")
        #expect(
            status != 0 && said.contains("was written by a newer pushmock (store version 9, this one reads up to 6)"), "\(said)")
    }
}
