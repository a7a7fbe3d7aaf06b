import Foundation
import Testing

/// Hostile clients over real sockets (`Tests/clients/hostile.py`): each case has a bounded
/// duration, a well-behaved client is served during and after it, and the server's memory
/// stays bounded throughout. The HTTP/2 abuse cases are in `TLSTests.abuse`.
@Suite("Hardening: hostile HTTP/1.1 clients, on the plain and the TLS port", .serialized)
struct HardeningTests {
    static func peakMemoryKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    @Test(
        "slowloris, header floods, huge and deeply nested JSON, invalid UTF-8: refused, others served, memory bounded",
        arguments: Port.allCases)
    func hostileClients(_ port: Port) throws {
        let server = try ServerProcess(["--timeout", "2", "--accept-any-token"])
        let (exit, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/hostile.py", String(server.port), String(try #require(server.tlsPort)), ServerProcess.caFile,
            ] + (port == .tls ? ["--tls"] : []))
        #expect(exit == 0, "\(out)")
        var cases: [String: [String: Any]] = [:]
        for line in out.split(separator: "\n") where line.hasPrefix("{") {
            if let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] {
                cases[obj["case"] as! String] = obj
            }
        }
        // slowloris opens connections on both ports, so it runs once, in the plain variant.
        #expect(cases.count == (port == .plain ? 5 : 4), "\(out)")
        for (name, c) in cases { #expect(c["healthy"] as? Bool == true, "\(name): a normal client was not served after it") }
        func seen(_ name: String) -> [String: Any] { cases[name]?["seen"] as? [String: Any] ?? [:] }
        func status(_ name: String, _ key: String) -> Int? { (seen(name)[key] as? [Any])?.first as? Int }

        // 150 plain and 20 TLS connections trickling header bytes: each cut off once --timeout
        // passes without a whole request (a timer on silence would never fire: bytes keep coming).
        if port == .plain {
            let loris = seen("slowloris")
            #expect(loris["cut_off"] as? Int == 170 && loris["connections"] as? Int == 170, "\(loris)")
            #expect((loris["first_cut"] as? Double ?? 0) >= 2, "not before the timeout: \(loris)")
            #expect(loris["served_during"] as? Bool == true)
        }

        #expect(status("header_flood", "big_headers") == 400 && status("header_flood", "long_header") == 400)
        #expect(status("huge_json", "5MiB_with_length") == 413 && status("huge_json", "5MiB_chunked") == 413)
        #expect(status("huge_json", "60000_keys") == 200, "a wide object is parsed in linear time: \(seen("huge_json"))")
        #expect(status("huge_json", "v1_60000_keys") == 400)
        for api in ["legacy", "v1", "control"] {
            #expect(status("deep_json", api) == 400, "\(api): \(seen("deep_json"))")
            #expect(status("invalid_utf8", api) == 400, "\(api): \(seen("invalid_utf8"))")
        }
        #expect(
            (seen("deep_json")["legacy"] as? [Any])?.last as? String == "JSON_PARSING_ERROR: Nesting too deep at position 71.\n")
        #expect(status("invalid_utf8", "legacy_form") == 400)
        #expect(status("invalid_utf8", "query_and_header") == 200)

        // 5 MiB bodies were refused before being buffered; 170 connections came and went. The
        // address sanitizer holds freed memory back (its quarantine, 256 MiB by default) and
        // pads every allocation, so its build's bound adds the quarantine.
        let peak = Self.peakMemoryKiB(server.process.processIdentifier)
        let bound = (ServerProcess.isSanitized ? 128 + 256 : 128) * 1024
        #expect(peak > 0 && peak < bound, "peak resident memory \(peak) KiB")
        #expect(server.stop() == 0)
    }
}

extension HardeningTests {
    @Test(
        "out of file descriptors: idle connections make room and accepting pauses; a new client gets in while 300 idle ones stay open"
    )
    func outOfDescriptors() throws {
        let (status, out) = try runCommand(
            RealClientTests.python,
            [TLSTests.clients + "/descriptors.py", ServerProcess.binary.path, ServerProcess.certDirectory])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["kept_first"] as? Int == 200, "\(out)")
        #expect((r["cpu_share"] as? Double ?? 1) < 0.5, "the accept loop spun: \(out)")
        #expect(r["new_after"] as? Int == 200 && r["warned"] as? Bool == true, "\(out)")
    }
}

@Suite("Hardening: answers a client does not read", .serialized, .serverTestLimit)
struct UnreadAnswersTests {
    @Test(
        "HTTP/2 exports, long lists, long-polls and lists of sends on a closed window, and pipelined long lists and long-polls never read: memory stays bounded, the reader is cut off at --timeout, others are served"
    )
    func unreadAnswers() throws {
        let server = try ServerProcess(["--timeout", "3", "--device-rate-limit", "0"])
        let (exit, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/unread_answers.py", String(server.port), String(try #require(server.tlsPort)),
                ServerProcess.caFile, String(server.process.processIdentifier), "3",
            ])
        #expect(exit == 0, "\(out)")
        var cases: [String: [String: Any]] = [:]
        for line in out.split(separator: "\n") where line.hasPrefix("{") {
            if let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] {
                cases[obj["case"] as! String] = obj
            }
        }
        #expect((cases["log"]?["events"] as? Int ?? 0) >= 100_000, "\(out)")
        #expect((cases["log"]?["messages"] as? Int ?? 0) >= 3_000, "\(out)")
        let attacks =
            ["tls", "h2c"].flatMap { ["h2_exports_\($0)", "h2_lists_\($0)", "h2_long_polls_\($0)"] }
            + ["http1_pipelined_tls", "http1_pipelined_plain", "h2_messages_tls", "http1_long_polls_plain"]
        for name in attacks {
            let c = cases[name] ?? [:]
            #expect((c["growth_mib"] as? Double ?? .infinity) < 64, "\(name): \(c)")
            #expect(c["cut_after"] as? Double != nil, "\(name) was never cut off: \(c)")
            #expect(c["failed"] as? Int == 0 && (c["answers"] as? Int ?? 0) > 10, "\(name): \(c)")
        }
        #expect(server.stop() == 0)
    }
}
