import Foundation
import Testing

@Suite("The README, run as written", .serverTestLimit)
struct ReadmeTests {
    @Test("every command block of the README runs, in order, in one shell session, and does what it says")
    func everyBlock() throws {
        let unshare = "/usr/bin/unshare " + (getuid() == 0 ? "" : "--map-root-user ") + "--net --mount"
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-readme-\(getpid()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        // Output to a file, waiting for the session itself: the recipes leave servers running
        // in the namespace (as a reader's terminal would), which a pipe would wait on.
        let command = [
            unshare, "bash", TLSTests.clients + "/readme.sh", ServerProcess.binary.path, RealClientTests.python,
            ServerProcess.packageRoot.appendingPathComponent("README.md").path,
        ].map { $0.contains(" ") ? $0 : "'\($0)'" }.joined(separator: " ")
        let (status, out) = try runShell(command, log: log)
        #expect(status == 0, "\(out)")
        #expect(out.hasSuffix("README OK\n"), "\(out)")
        // What each recipe says it shows.
        #expect(out.components(separatedBy: "projects/demo-pushmock/messages/").count == 3, "two Admin SDK sends: \(out)")
        #expect(out.contains(#"{"message_id":"#), "the quick start's topic send: \(out)")
        #expect(out.contains("\"aps\""), "the iPhone's APNs request: \(out)")
        #expect(out.contains("HTTP/2 200"), "the APNs push: \(out)")
    }
}
