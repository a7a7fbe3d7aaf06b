import Foundation
import Testing

extension Trait where Self == TimeLimitTrait {
    /// Every server suite's time limit. It counts from when a test is started, and Swift Testing
    /// starts every test at once while its worker threads (as many as cores: two here) are held
    /// by tests waiting on processes: a test may start minutes before it runs, so the limit
    /// bounds the whole pass, not one test. The pass under the address sanitizer took four
    /// minutes here, and seven in a busy hour: twenty minutes leaves room for a slower machine,
    /// inside CI's ninety. A hang still fails.
    static var serverTestLimit: Self { .timeLimit(.minutes(20)) }
}

/// A real `pushmock` process on a free loopback port, stopped with SIGTERM when released.
final class ServerProcess {
    let process = Process()
    let url: String
    let port: Int
    /// The TLS port, when the server was started with one (the default).
    let tlsPort: Int?
    /// The MCS port, when it has one (with TLS, a free one).
    let mcsPort: Int?
    /// What the server prints goes to a file, read by path: a pipe's descriptor, closed and
    /// reused while tests start processes in parallel, once let one test's reader take
    /// another process's output.
    private let outputPath = FileManager.default.temporaryDirectory
        .appendingPathComponent("pushmock-out-\(UUID().uuidString).log").path
    /// The file's handle, given to the process as its standard output and error. Foundation's
    /// `Process` uses it after the start too, so it is kept and never closed here.
    private let sink: FileHandle

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// One CA for the whole test run, shared by every server the tests start.
    static let certDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-test-certs").path
    static var caFile: String { certDirectory + "/ca.pem" }

    /// The server under test is the address-sanitized build (`make test-asan`), several
    /// times slower: the heaviest tests use fewer devices.
    static var isSanitized: Bool { binary.path.contains("/asan/") }

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PUSHMOCK_BIN"] { return URL(fileURLWithPath: path) }
        return packageRoot.appendingPathComponent(".build/debug/pushmock")
    }

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    init(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
        process.executableURL = Self.binary
        let tls = arguments.contains("--tls-port") ? [] : ["--tls-port", "0"]
        process.arguments = ["--port", "0", "--cert-dir", Self.certDirectory] + tls + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHMOCK_") }
        env.merge(environment) { $1 }
        process.environment = env
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let sink = FileHandle(forWritingAtPath: outputPath)
        else { throw StartFailure(description: "cannot create \(outputPath)") }
        self.sink = sink
        process.standardOutput = sink
        process.standardError = sink
        try process.run()
        // The listener lines come last; the process ending first is a failed start.
        var found: String?
        var seen = ""
        let wantsTLS = !(arguments.contains("off") && arguments.contains("--tls-port"))
        // MCS follows TLS unless told otherwise; its line is the last.
        let mcsFlag = arguments.firstIndex(of: "--mcs-port").map { arguments[$0 + 1] }
        let wantsMCS = mcsFlag.map { $0 != "off" } ?? wantsTLS
        let wanted: String? = wantsMCS ? "tls://" : wantsTLS ? "https://" : nil
        let deadline = Date(timeIntervalSinceNow: 60)
        while found == nil || !(wanted.map(seen.contains) ?? true), Date() < deadline {
            seen = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            found = seen.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression).map { String(seen[$0]) }
            if !process.isRunning { break }
            if found == nil || !(wanted.map(seen.contains) ?? true) { usleep(10_000) }
        }
        if !process.isRunning { seen = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? seen }
        guard let found, let port = Int(found.split(separator: ":").last!) else {
            process.terminate()
            throw StartFailure(description: "pushmock did not report a URL: \(seen)")
        }
        url = found
        self.port = port
        tlsPort = seen.range(of: #"https://127\.0\.0\.1:\d+"#, options: .regularExpression)
            .flatMap { Int(seen[$0].split(separator: ":").last!) }
        mcsPort = seen.range(of: #"tls://127\.0\.0\.1:\d+"#, options: .regularExpression)
            .flatMap { Int(seen[$0].split(separator: ":").last!) }
    }

    /// Everything the server printed so far.
    var log: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and waits; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: outputPath)
    }

    /// Registers a device through the control API and returns it.
    func device(_ platform: String, app: String = "com.example.app") throws -> [String: Any] {
        let c = try HTTPConnection(port: port)
        let r = try c.request(
            "POST", "/emulator/v1/projects/demo-pushmock/devices",
            body: #"{"platform":"\#(platform)","app":"\#(app)"}"#)
        guard r.status == 201 else { throw StartFailure(description: "device: \(r.status) \(r.text)") }
        return r.json
    }
}
