import Foundation
import Testing

@Suite("The dashboard, event streams and metrics on a live server", .timeLimit(.minutes(3)))
struct DashboardTests {
    static let clients = ServerProcess.packageRoot.appendingPathComponent("Tests/clients").path
    /// Ignored by git; look at them after a run.
    static let screenshots = ServerProcess.packageRoot.appendingPathComponent("Tests/screenshots").path

    @Test(
        "SSE delivers new events, resumes after Last-Event-ID, sends heartbeats, cuts off a client that never reads; the export and /metrics agree with the log"
    )
    func streams() throws {
        let server = try ServerProcess(["--device-rate-limit", "0"])
        let (status, out) = try runCommand(RealClientTests.python, [Self.clients + "/streams.py", String(server.port)])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["live_ids"] as? [Int] == [3, 4, 5, 6], "\(out)")
        #expect(
            r["live_events"] as? [String] == ["MESSAGE_ACCEPTED", "MESSAGE_DELIVERED", "MESSAGE_ACCEPTED", "MESSAGE_DELIVERED"])
        #expect((r["heartbeats"] as? Int ?? 0) >= 2)
        #expect(r["content_type"] as? Bool == true)
        #expect(r["resumed_ids"] as? [Int] == [4, 6])
        #expect(r["stream_clients_while_open"] as? [String] == ["pushmock_stream_clients 1"])
        #expect(r["slow_client_cut_off"] as? Bool == true)
        #expect(r["health_after"] as? String == "ok")
        #expect((r["export_rows"] as? Int ?? 0) > 30_000 && r["export_rows"] as? Int == r["export_expected"] as? Int)
        #expect(r["export_in_order"] as? Bool == true)
        #expect((r["export_columns"] as? [String])?.contains("event_timestamp") == true)
        #expect((r["metrics_requests"] as? [String])?.isEmpty == false)
    }

    @Test(
        "in Chromium: a push appears live, opens with the keyboard, its notification is opened from the device page and Opens go up; a silent push to a force-quit iPhone shows as dropped"
    )
    func browser() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "make test installs chromium and chromium-driver")
        let server = try ServerProcess()
        try? FileManager.default.removeItem(atPath: Self.screenshots)
        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/dashboard_browser.py", String(server.port), Self.screenshots])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["appeared_live"] as? Bool == true, "\(out)")
        #expect(
            r["detail_has_request"] as? Bool == true && r["detail_has_device"] as? Bool == true
                && r["detail_has_rendering"] as? Bool == true)
        #expect(r["opens"] as? Int == 1 && r["sends"] as? Int == 1)
        #expect(r["silent_dropped"] as? Bool == true)
        #expect((r["topics"] as? String)?.contains("news 1") == true)
        #expect(r["went_offline"] as? Bool == true)
        #expect(r["web_payload"] as? Bool == true, "\(out)")
        #expect(r["bridge_attempts"] as? Bool == true, "\(out)")
        #expect(r["console_errors"] as? [String] == [])
        let shots = (try? FileManager.default.contentsOfDirectory(atPath: Self.screenshots)) ?? []
        #expect(shots.filter { $0.hasSuffix(".png") }.count == 10)
    }

    @Test("in Chromium: with --legacy-api shutdown, the Reports view lists who still calls the legacy API, newest first")
    func legacyCallers() throws {
        let server = try ServerProcess(["--legacy-api", "shutdown"])
        let (status, out) = try runCommand(RealClientTests.python, [Self.clients + "/dashboard_legacy.py", String(server.port)])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["statuses"] as? [Int] == [404, 404], "\(out)")
        #expect(
            r["rows"] as? [String] == [
                "POST /fcm/notification (User-Agent: groups-job/2.0)", "POST /fcm/send (User-Agent: old-server/1.0)",
            ], "\(out)")
    }
}
