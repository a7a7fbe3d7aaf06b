import Foundation
import Testing

@Suite("Real FCM clients register with pushmock and receive from it", .timeLimit(.minutes(4)))
struct FCMClientTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path

    /// Runs a client script inside a private network namespace where Google's hosts are
    /// pushmock (`in_namespace.sh`); `environment` reaches pushmock (`PUSHMOCK_*`).
    static func inNamespace(_ script: String, _ arguments: [String] = [], certs: String, environment: [String: String] = [:])
        throws -> (Int32, String)
    {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHMOCK_") }
        env.merge(environment) { $1 }
        return try runCommand(
            "/usr/bin/unshare",
            [
                "--net", "--mount", "sh", clients + "/in_namespace.sh", ServerProcess.binary.path, certs,
                RealClientTests.python, clients + "/" + script,
            ] + arguments, environment: env)
    }

    static func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-\(name)-\(getpid())").path
    }

    @Test(
        "firebase-messaging 0.4.5, unmodified: check-in, register3, Installations, FCM registration, MCS; firebase-admin's send arrives as the fact sheet's JSON, its ack is logged, and a push sent while it was stopped arrives when it starts again"
    )
    func firebaseMessaging() throws {
        let certs = Self.scratch("fm-certs")
        defer { try? FileManager.default.removeItem(atPath: certs) }
        let (status, out) = try Self.inNamespace("fcm_receiver.py", certs: certs)
        #expect(status == 0, "\(out)")
        #expect(out.contains(#""priority": "normal", "fcmMessageId""#), "\(out)")
        #expect(out.contains(#""acknowledged": 1"#) && out.contains(#""after_restart": {"while": "away"}"#), "\(out)")
        #expect(out.contains(#""kind": "mcs""#) && out.contains(#""connected": true"#), "\(out)")
    }

    @Test(
        "with --data-dir, check-ins, GCM registrations, installations and tokens survive a restart: a client with its stored credentials only checks in and reconnects, and its token still takes sends"
    )
    func durable() throws {
        let certs = Self.scratch("fm-durable-certs")
        let dir = Self.scratch("fm-durable-data")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(atPath: certs)
            try? FileManager.default.removeItem(atPath: dir)
        }
        let env = ["PUSHMOCK_DATA_DIR": dir]
        let (status, out) = try Self.inNamespace(
            "fcm_receiver.py", ["register", dir + "/credentials.json"], certs: certs, environment: env)
        #expect(status == 0, "\(out)")
        let (again, resumed) = try Self.inNamespace(
            "fcm_receiver.py", ["resume", dir + "/credentials.json"], certs: certs, environment: env)
        #expect(again == 0, "\(resumed)")
        #expect(resumed.contains(#""data": {"after": "restart"}"#), "\(resumed)")
    }

    @Test(
        "GCM check-in, register3 and MCS byte by byte with Google's own message definitions: logins, data messages in both codings, every kind of acknowledgement, redelivery, heartbeats both ways, expiry, and each hostile packet closed"
    )
    func mcsProtocol() throws {
        let server = try ServerProcess(["--timeout", "2"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [Self.clients + "/mcs_client.py", String(server.port), String(try #require(server.mcsPort)), ServerProcess.caFile])
        #expect(status == 0, "\(out)")
        #expect(out.contains(#"{"checks": 11}"#), "\(out)")
    }

    @Test("idle MCS connections beyond --max-connections: the oldest are closed to make room, and the server goes on")
    func idleFlood() throws {
        let server = try ServerProcess(["--max-connections", "60"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                Self.clients + "/mcs_client.py", "flood", String(server.port), String(try #require(server.mcsPort)),
                ServerProcess.caFile, "120",
            ])
        #expect(status == 0, "\(out)")
    }
}
