import Foundation
import Testing

/// Damage SQLite does not refuse: pushmock must say what it could not take back, with counts.
extension StoreTests {
    /// A device and `sends` legacy sends to it, each given time to be committed on its own.
    private func sendSeparately(_ server: ServerProcess, sends: Int) throws {
        let token = try server.device("android")["token"] as? String ?? ""
        let c = try HTTPConnection(port: server.port)
        for i in 0..<sends {
            let r = try c.request(
                "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"n":"\#(i)"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"])
            #expect(r.status == 200, "\(r.text)")
            usleep(150_000)
        }
    }

    private func eventCount(_ server: ServerProcess) throws -> Int {
        let c = try HTTPConnection(port: server.port)
        return try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true").json["count"] as? Int ?? -1
    }

    @Test(
        "a damaged row that passes SQLite's quick check is not skipped silently: the start says how many rows it left out and why"
    )
    func damagedRow() throws {
        let dir = freshDirectory("row")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flags = storeFlags(dir)
        var server = try ServerProcess(flags)
        try sendSeparately(server, sends: 3)
        let before = try eventCount(server)
        #expect(server.stop() == 0)

        // One event's name garbled in place: the b-tree is intact, so quick_check passes.
        let db = URL(fileURLWithPath: dir + "/pushmock.db")
        var bytes = [UInt8](try Data(contentsOf: db))
        let name = Array("MESSAGE_ACCEPTED".utf8)
        let at = (0...(bytes.count - name.count)).first { Array(bytes[$0..<$0 + name.count]) == name }
        try #require(at != nil)
        bytes[at! + name.count - 1] = UInt8(ascii: "X")
        try Data(bytes).write(to: db)

        server = try ServerProcess(flags)
        #expect(server.log.contains("WARNING: 1 of the \(before) newest events"), "\(server.log)")
        #expect(server.log.contains("1 name no event pushmock logs (damaged rows)"), "\(server.log)")
        #expect(try eventCount(server) == before - 1)
    }

    @Test(
        "garbage in the write-ahead log after a kill: the start says how many committed transactions SQLite's recovery drops, and keeps the log as it was"
    )
    func damagedWriteAheadLog() throws {
        let dir = freshDirectory("wal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flags = storeFlags(dir)
        var server = try ServerProcess(flags)
        try sendSeparately(server, sends: 5)
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()

        // Bytes of the first frame's page overwritten: recovery stops there, before the
        // transactions that follow.
        let wal = URL(fileURLWithPath: dir + "/pushmock.db-wal")
        var bytes = [UInt8](try Data(contentsOf: wal))
        try #require(bytes.count > 32 + 24 + 4096 * 3, "the log holds several frames")
        for i in 0..<64 { bytes[32 + 24 + 100 + i] ^= 0x5A }
        try Data(bytes).write(to: wal)

        server = try ServerProcess(flags)
        let log = server.log
        #expect(log.contains("WARNING: \(wal.path) is damaged at frame 1 (byte 32)"), "\(log)")
        let committed = log.firstMatch(of: /\((\d+) committed transactions\)/).flatMap { Int($0.1) } ?? 0
        #expect(committed >= 5, "\(log)")
        let copies = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("pushmock.db-wal.damaged-") }
        #expect(copies.count == 1)
        if let copy = copies.first {
            #expect(FileManager.default.contents(atPath: dir + "/" + copy) == Data(bytes))
        }
        #expect(server.stop() == 0)
    }
}

/// Faults at start (a store cut short or overwritten in the middle) and while serving (the
/// data directory removed): a clear refusal or the services' 503, never a crash or silence.
extension StoreTests {
    /// A store with a few hundred events, stopped cleanly; answers its path and size.
    private func storeWithEvents(_ name: String) throws -> (dir: String, db: String, size: Int) {
        let dir = freshDirectory(name)
        let server = try ServerProcess(storeFlags(dir))
        let token = try server.device("android")["token"] as? String ?? ""
        let c = try HTTPConnection(port: server.port)
        for i in 0..<300 {
            _ = try c.request(
                "POST", "/fcm/send",
                body: #"{"to":"\#(token)","data":{"n":"\#(i)","pad":"\#(String(repeating: "x", count: 200))"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"])
        }
        #expect(server.stop() == 0)
        let db = dir + "/pushmock.db"
        let size = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
        return (dir, db, size)
    }

    /// Whether the server's output has `text`, waiting up to 3 s for it to be written.
    private func said(_ server: ServerProcess, _ text: String) -> Bool {
        for _ in 0..<60 {
            if server.log.contains(text) { return true }
            usleep(50_000)
        }
        return false
    }

    /// Starts pushmock on a directory and waits for it to end (stopping it after 20 s, when it
    /// started instead); answers its status and output.
    private func startOnly(_ dir: String) throws -> (status: Int32, said: String) {
        try runShell("timeout 20 '\(ServerProcess.binary.path)' --port 0 --tls-port off --data-dir '\(dir)'", log: dir + ".out")
    }

    @Test(
        "a store cut short, or with a page overwritten in the middle, stops the start with a message naming the file, and is left as it was"
    )
    func truncatedOrCorrupted() throws {
        let cut = try storeWithEvents("truncated")
        defer { try? FileManager.default.removeItem(atPath: cut.dir) }
        #expect(cut.size > 64 * 1024)
        #expect(truncate(cut.db, off_t(cut.size / 2)) == 0)
        let (s1, said1) = try startOnly(cut.dir)
        #expect(s1 != 0 && said1.contains(cut.db) && said1.contains("damaged"), "\(said1)")
        #expect((try FileManager.default.attributesOfItem(atPath: cut.db)[.size] as? Int) == cut.size / 2)

        let hit = try storeWithEvents("corrupted")
        defer { try? FileManager.default.removeItem(atPath: hit.dir) }
        // A whole page in the middle, its size read from the header (bytes 16-17, 1 for 65,536).
        let header = [UInt8](try Data(contentsOf: URL(fileURLWithPath: hit.db)).prefix(18))
        let stored = Int(header[16]) << 8 | Int(header[17])
        let pageSize = stored == 1 ? 65_536 : stored
        #expect(hit.size / pageSize >= 3, "several pages")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: hit.db))
        try handle.seek(toOffset: UInt64(hit.size / 2 / pageSize * pageSize))
        try handle.write(contentsOf: Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: hit.db))
        let (s2, said2) = try startOnly(hit.dir)
        #expect(s2 != 0 && said2.contains(hit.db) && said2.contains("damaged"), "\(said2)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: hit.db)) == before)
    }

    @Test(
        "the data directory removed while serving: the next commit notices, sends get the services' 503, reads go on, and the exit says what could not be written",
        arguments: ["batch", "always"])
    func dataDirectoryRemoved(sync: String) throws {
        let dir = freshDirectory("vanish-\(sync)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServerProcess(storeFlags(dir) + ["--sync", sync])
        let token = try server.device("android")["token"] as? String ?? ""
        let c = try HTTPConnection(port: server.port)
        func send() throws -> Int {
            try c.request(
                "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
                headers: ["Authorization": "key=pushmock-dev-server-key"]
            ).status
        }
        #expect(try send() == 200)
        usleep(200_000)
        try FileManager.default.removeItem(atPath: dir)
        // Batch: the send is answered before its commit, which finds the store gone; with
        // --sync always the answer waits for that commit and is the 503.
        let first = try send()
        #expect(first == (sync == "always" ? 503 : 200))
        usleep(200_000)
        let refused = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
            headers: ["Authorization": "key=pushmock-dev-server-key"])
        #expect(refused.status == 503 && refused.headers["retry-after"] == "10", "\(refused.text)")
        #expect(try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true").status == 200)
        #expect(said(server, "is gone (the data directory or the file was removed while pushmock ran)"), "\(server.log)")
        #expect(server.stop() != 0)
        #expect(said(server, "could not be written to \(dir)/pushmock.db"), "\(server.log)")
    }
}
