import Foundation
import Testing

@Suite("--seed fixtures on a live server", .serverTestLimit)
struct FixtureTests {
    @Test(
        "a fixture's key, tokens and subscriptions work from the first request; a bad fixture stops the start naming the file and the path"
    )
    func seed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-seed-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "y", count: 134)
        let good = dir.appendingPathComponent("good.json")
        try #"""
        {"projects": [{"id": "demo-pushmock", "server_keys": ["ci-key"],
          "devices": [{"platform": "android", "app": "com.example.ci", "token": "\#(token)", "topics": ["news"]}]}]}
        """#.write(to: good, atomically: true, encoding: .utf8)
        let server = try ServerProcess(["--seed", good.path])
        // The banner names the key the fixture set, not the default it replaced.
        #expect(server.log.contains("pushmock: project demo-pushmock, server key ci-key\n"), "\(server.log)")
        let c = try HTTPConnection(port: server.port)
        let r = try c.request(
            "POST", "/fcm/send", body: #"{"to":"\#(token)","data":{"k":"v"}}"#,
            headers: ["Authorization": "key=ci-key", "Content-Type": "application/json"])
        #expect(r.status == 200 && r.text.contains(#""success":1"#), "\(r.text)")
        let topics = try c.request("GET", "/emulator/v1/projects/demo-pushmock/topics").json["topics"] as? [[String: Any]]
        #expect(topics?.first?["name"] as? String == "news")
        server.stop()

        let bad = dir.appendingPathComponent("bad.json")
        try #"{"projects": [{"id": "demo-pushmock", "devices": [{"platform": "phone", "app": "a"}]}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        let (status, out) = try runCommand(
            ServerProcess.binary.path,
            [
                "--port", "0", "--tls-port", "off",
                "--cert-dir", ServerProcess.certDirectory, "--seed", bad.path,
            ])
        #expect(status != 0)
        #expect(out.contains("\(bad.path): projects[0].devices[0]: Invalid value at 'platform'"), "\(out)")
        let (missing, text) = try runCommand(
            ServerProcess.binary.path,
            [
                "--port", "0", "--tls-port", "off",
                "--cert-dir", ServerProcess.certDirectory, "--seed", dir.path + "/nope.json",
            ])
        #expect(missing != 0 && text.contains("nope.json: cannot read the file"), "status \(missing): \(text)")
    }
}
