import Foundation
import Testing

@Suite("Chaos over real sockets", .serialized)
struct ChaosServerTests {
    @Test("latency waits on a loop timer without holding up others; drops close HTTP/1.1, close or GOAWAY HTTP/2; all logged")
    func chaosOnTheWire() throws {
        let server = try ServerProcess(["--chaos-seed", "1"])
        let (status, out) = try runCommand(
            RealClientTests.python,
            [
                TLSTests.clients + "/chaos_client.py", String(server.port), String(try #require(server.tlsPort)),
                ServerProcess.caFile,
            ])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        let latency = r["latency"] as? [String: Any]
        #expect(latency?["order"] as? [String] == ["healthz", "other project", "delayed"], "\(out)")
        #expect(latency?["statuses"] as? [Int] == [200, 200, 200] && latency?["delayed_at_least_400ms"] as? Bool == true)
        #expect((r["http1_drop"] as? [String: Any])?["bytes"] as? Int == 0)
        let goaway = r["h2_goaway"] as? [String: Any]
        #expect(
            goaway?["goaway"] as? Int == 0 && goaway?["last_stream_id"] as? Int == 0 && goaway?["responses"] as? Int == 0,
            "\(out)")
        let close = r["h2_close"] as? [String: Any]
        #expect(close?["closed"] as? Bool == true && close?["responses"] as? Int == 0 && close?["goaway"] is NSNull, "\(out)")
        #expect(r["h2_latency_order"] as? [String] == ["healthz", "push"])
        #expect(r["healthy_after"] as? Int == 200)
        #expect(r["chaos_events"] as? Int == 3, "one event per dropped request: \(out)")
        #expect((r["metrics_dropped"] as? [String])?.count == 2, "\(out)")
        #expect(server.stop() == 0)
    }
}
