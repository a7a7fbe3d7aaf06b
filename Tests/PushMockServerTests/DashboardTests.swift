import Foundation
import Testing

@Suite("The dashboard, event streams and metrics on a live server", .serverTestLimit)
struct DashboardTests {
    /// How many operations docs/openapi.json describes: the API reference page shows each.
    static func describedOperations() throws -> Int {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let paths = doc?["paths"] as? [String: [String: Any]] ?? [:]
        return paths.values.reduce(0) { $0 + $1.count }
    }

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
        "in Chromium, as a person uses it: live pushes, previews, links with Back and Forward, pages, panes that scroll alone, narrow windows, an unknown project, managing devices, chaos and the project, charts, the API reference, dark mode"
    )
    func browser() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "make test installs chromium and chromium-driver")
        // The page makes a command bridge that runs `true`.
        let server = try ServerProcess(["--allow-command", "true", "--accept-any-token"])
        try? FileManager.default.removeItem(atPath: Self.screenshots)
        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/dashboard_browser.py", String(server.port), Self.screenshots])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        let seen = { (key: String) in r[key] as? Bool == true }
        // Every check the script reports as true or false must be true.
        let checks = [
            "appeared_live", "message_url", "raw_request", "android_preview", "device_url", "inbox_title", "back_forward",
            "link_opens_device", "chart_axes", "chart_values", "silent_dropped", "ios_preview", "no_remote_fetch",
            "image_on_request", "words_whole_1024", "words_whole_1440", "created_from_ui", "subscription_shown", "web_preview",
            "web_payload", "real_client_shown",
            "page_two", "list_scrolled", "detail_in_view", "keyboard", "narrow", "deleted_one", "went_offline", "unsubscribed",
            "bridge_attempts", "deleted_device", "api_readable", "project_facts", "chaos_on", "chaos_off", "reset", "cleared",
            "refused_v1_row", "chaos_round_trip", "error_stays", "error_dismissed", "reports_explained", "states_listed",
            "download_json", "download_csv", "download_ndjson", "delay_shown", "log_lists_refusals", "log_count_project",
            "log_links_message", "recipient_shown", "one_line_rows", "fanout_summary", "fanout_page", "fanout_expands",
            "fanout_next", "try_curl", "try_send",
        ]
        for key in checks { #expect(seen(key), "\(key): \(out)") }
        #expect(r["default_route"] as? String == "#/demo-pushmock/messages")
        #expect(r["relative_time"] as? String == "just now")
        #expect(r["opens"] as? Int == 1 && r["sends"] as? Int == 1)
        #expect(r["chart_tooltip"] as? String == "Sends: 1")
        #expect(r["ios_badge"] as? String == "3")
        #expect(r["not_delivered"] as? String == "not-a-token invalid_registration malformed_token")
        #expect((r["page_one"] as? String)?.hasPrefix("1–50 of ") == true)
        let unknown = r["unknown_project"] as? [String: Any]
        #expect(unknown?["banner"] as? String == "Project 'Not_A_Project!' is not a valid project id.")
        #expect(unknown?["rows"] as? Int == 0)
        #expect((r["topics"] as? String)?.contains("news 1") == true)
        #expect(r["api_operations"] as? Int == (try Self.describedOperations()))
        #expect(r["chaos_error"] as? String == "503")
        #expect(r["dark_background"] as? String == "rgb(20, 24, 29)")
        #expect(r["console_errors"] as? [String] == [])
        #expect(r["gallery"] as? Int == 32, "8 pages, 2 widths, light and dark")
        // A 1,000-device send is a summary and a page of 25 lines, not a 5,000-pixel scroll.
        #expect((r["fanout_height"] as? Int ?? .max) < 2500, "\(r["fanout_height"] ?? "")")
        let folded = r["bridge_folded"] as? [Any]
        let line = folded?.first as? String ?? ""
        #expect(line.hasPrefix("b1 webhook: 6 attempts, last connection failed"), "\(line)")
        // Accepted, delivered, displayed, impression, and one line for the bridge.
        #expect(folded?.last as? Int == 5, "\(folded ?? [])")
        #expect(r["bridge_unfolded"] as? Int == 6)
        let shots = (try? FileManager.default.contentsOfDirectory(atPath: Self.screenshots)) ?? []
        #expect(shots.filter { $0.hasSuffix(".png") }.count == 20)
    }

    @Test("opened with --control-token, the dashboard's downloads (Export CSV) carry the token: no 401")
    func tokenDownloads() throws {
        let server = try ServerProcess(["--control-token", "s3cret"])
        let (status, out) = try runCommand(
            RealClientTests.python, [Self.clients + "/dashboard_token.py", String(server.port), "s3cret"])
        #expect(status == 0, "\(out)")
        let r = lastJSON(out)
        #expect(r["csv_status"] as? Int == 200 && r["csv_header"] as? Bool == true, "\(out)")
        #expect(r["without_token"] as? Int == 401, "\(out)")
        #expect(r["banner_hidden"] as? Bool == true, "\(out)")
    }

    @Test("the dashboard's scripts pass their unit tests (node --test), and every file the page loads is served from the binary")
    func scripts() throws {
        let root = ServerProcess.packageRoot.path
        let (status, out) = try runCommand("/usr/bin/node", ["--test", root + "/Tests/dashboard/"])
        #expect(status == 0 && out.contains("# fail 0"), "\(out)")
        let server = try ServerProcess()
        let page = try HTTPConnection(port: server.port).request("GET", "/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        let html = page.text
        let modules = try FileManager.default.contentsOfDirectory(atPath: root + "/dashboard/js").map { "/ui/" + $0 }
        for path in ["/ui/style.css", "/ui/chart.js"] + modules {
            let r = try HTTPConnection(port: server.port).request("GET", path)
            #expect(r.status == 200 && !r.body.isEmpty, "\(path)")
            if path.hasSuffix(".js") { #expect(r.headers["content-type"] == "text/javascript; charset=utf-8", "\(path)") }
        }
        #expect(html.contains("/ui/main.js") && html.contains("/ui/chart.js"))
        let spec = try HTTPConnection(port: server.port).request("GET", "/emulator/v1/openapi.json")
        #expect(spec.status == 200 && spec.headers["content-type"] == "application/json; charset=utf-8")
        let onDisk = try Data(contentsOf: ServerProcess.packageRoot.appendingPathComponent("docs/openapi.json"))
        #expect(spec.body == onDisk, "the served description is docs/openapi.json as built")
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
