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
