import Foundation
import Testing

/// Runs a command and returns its exit status and output.
func runCommand(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    var text = String(decoding: data, as: UTF8.self)
    // Said in the output, so a failing expectation shows it.
    if p.terminationReason == .uncaughtSignal { text += "\n[\(executable) ended by signal \(p.terminationStatus)]" }
    return (p.terminationStatus, text)
}

/// Runs a shell command line with its output (and errors) in the file `log`, waits for the
/// shell only, and returns its exit status and what it wrote. Never system(3): its child inherits every open
/// descriptor of the test process, among them the pipes other tests read their clients'
/// output from, which then stay open, and those tests waiting, as long as the command or a
/// server it leaves running lives. Foundation's Process closes them in the child.
func runShell(_ command: String, log: String) throws -> (status: Int32, said: String) {
    guard FileManager.default.createFile(atPath: log, contents: nil), let sink = FileHandle(forWritingAtPath: log) else {
        throw ServerProcess.StartFailure(description: "cannot create \(log)")
    }
    defer { try? sink.close() }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command]
    p.standardOutput = sink
    p.standardError = sink
    try p.run()
    p.waitUntilExit()
    let status = p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
    return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
}

@Suite("Real clients: curl and the Python legacy FCM libraries", .serverTestLimit)
struct RealClientTests {
    static var python: String {
        ServerProcess.packageRoot.appendingPathComponent(".venv/bin/python").path
    }

    @Test("the README's curl example of the seed's topic send reaches a subscribed iPhone as FCM would render it")
    func curlSeed() throws {
        let server = try ServerProcess()
        let ios = try server.device("ios", app: "jp.nnsnodnb.demo")
        let id = ios["id"] as! String
        let c = try HTTPConnection(port: server.port)
        #expect(try c.request("POST", "/emulator/v1/projects/demo-pushmock/devices/\(id)/topics/news").status == 200)
        let seed =
            #"{"to": "/topics/news", "priority": "high", "notification": {"title": "Hello", "body": "World", "badge": 1, "sound": "default", "mutable_content": true, "image_url": "https://example.com/push.png"}}"#
        let (status, out) = try runCommand(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", "\(server.url)/fcm/send",
                "-H", "Authorization: key=pushmock-dev-server-key",
                "-H", "Content-Type: application/json; charset=UTF-8",
                "--data-binary", seed,
            ])
        #expect(status == 0)
        #expect(out.range(of: #"^\{"message_id":\d{19}\}$"#, options: .regularExpression) != nil, "\(out)")
        let inbox = try c.request("GET", "/emulator/v1/projects/demo-pushmock/devices/\(id)/notifications").json
        let first = (inbox["notifications"] as? [[String: Any]])?.first
        let apns = first?["apns"] as? [String: Any]
        let payload = apns?["payload"] as? [String: Any]
        let aps = payload?["aps"] as? [String: Any]
        #expect(aps?["alert"] as? [String: String] == ["title": "Hello", "body": "World"])
        #expect(aps?["mutable-content"] as? Int == 1)
        #expect(aps?["badge"] as? Int == 1)
        #expect(payload?["gcm.notification.image_url"] as? String == "https://example.com/push.png")
        #expect((apns?["headers"] as? [String: String])?["apns-topic"] == "jp.nnsnodnb.demo")
    }

    @Test("requests (the seed's script) and PyFCM 1.5.4 get FCM's answers, and every accepted send is in the log")
    func pythonClients() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python), "run `make venv` (make test does) to create .venv")
        let server = try ServerProcess()
        let android = try server.device("android", app: "com.example.shop")
        let ios = try server.device("ios", app: "com.example.shop")
        let c = try HTTPConnection(port: server.port)
        #expect(try c.request("POST", "/emulator/v1/projects/demo-pushmock/devices/\(ios["id"]!)/topics/news").status == 200)
        let (status, out) = try runCommand(
            Self.python,
            [
                ServerProcess.packageRoot.appendingPathComponent("Tests/clients/legacy_clients.py").path,
                server.url, "pushmock-dev-server-key", android["token"] as! String, ios["token"] as! String,
            ])
        #expect(status == 0, "\(out)")
        let result = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any]
        #expect(result?["wrong_key"] as? String == "AuthenticationError")
        // Sends accepted: seed topic (1 device), single (1), multi (2 of 3), topic (1 device).
        let delivered = try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&event=MESSAGE_DELIVERED").json
        #expect(delivered["count"] as? Int == 5)
        let rejected = try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&event=INVALID_REGISTRATION")
            .json
        #expect(rejected["count"] as? Int == 1)
        let auth = try c.request("GET", "/emulator/v1/projects/demo-pushmock/events?count=true&event=AUTHENTICATION_ERROR").json
        #expect(auth["count"] as? Int == 1)
    }
}
