import Foundation
import Testing

@testable import PushMockCore

/// What `--data-dir` saves of the control plane: only the rows that changed, and rows that
/// put back together restore the same state.
@Suite("The saved state, as rows")
struct SavedStateTests {
    let base = "/emulator/v1/projects/demo-pushmock"

    /// The changes are kept for a store, as with `--data-dir` (without one they are not).
    let keepingChanges: (inout Configuration) -> Void = { $0.dataDirectory = "/nonexistent/pushmock-test" }

    func ids(_ rows: StateRows) -> [String] { rows.devices.map { "\($0.deviceID)\($0.json == nil ? " gone" : "")" } }

    @Test("each change names only its own rows: a device's state, a subscription, an uninstall, an app, a reset")
    func onlyWhatChanged() throws {
        let h = try Harness(keepingChanges)
        for _ in 0..<5 { try h.device("android") }
        _ = h.gateway.changedState(limit: .max)
        #expect(h.gateway.changes.isEmpty)
        try h.patch("d3", #"{"app_state":"foreground"}"#)
        var rows = h.gateway.changedState(limit: .max)
        #expect(ids(rows) == ["d3"] && rows.projects.isEmpty && rows.replacedProjects.isEmpty)
        #expect(String(decoding: rows.devices[0].json!, as: UTF8.self).contains(#""app_state":"foreground""#))
        try h.subscribe("d4", "news")
        try h.subscribe("d4", "sport")
        #expect(ids(h.gateway.changedState(limit: .max)) == ["d4"])
        #expect(h.call("DELETE", base + "/devices/d2").status == 200)
        #expect(ids(h.gateway.changedState(limit: .max)) == ["d2 gone"])
        #expect(h.call("POST", base + "/apps", body: #"{"platform":"android","app":"com.example.other"}"#).status == 200)
        rows = h.gateway.changedState(limit: .max)
        #expect(rows.projects.map(\.id) == ["demo-pushmock"] && rows.devices.isEmpty)
        #expect(h.call("DELETE", base).status == 200)
        rows = h.gateway.changedState(limit: .max)
        #expect(rows.replacedProjects == ["demo-pushmock"] && rows.projects.map(\.id) == ["demo-pushmock"])
    }

    @Test("many changed devices are handed over in steps of the limit, oldest first, each once")
    func inSteps() throws {
        let h = try Harness(keepingChanges)
        #expect(h.call("POST", base + "/devices:batchCreate", body: #"{"platform":"ios","app":"a.b","count":25}"#).status == 201)
        try h.patch("d1", #"{"online":false}"#)
        var seen: [String] = []
        while !h.gateway.changes.isEmpty { seen += ids(h.gateway.changedState(limit: 10)) }
        #expect(seen == (1...25).map { "d\($0)" })
    }

    @Test("everything left is taken at once after a part was taken (shutdown after a save in steps)")
    func restAfterSteps() throws {
        let h = try Harness(keepingChanges)
        #expect(h.call("POST", base + "/devices:batchCreate", body: #"{"platform":"ios","app":"a.b","count":25}"#).status == 201)
        let first = ids(h.gateway.changedState(limit: 10))
        let rest = ids(h.gateway.changedState(limit: .max))
        #expect(first + rest == (1...25).map { "d\($0)" })
        #expect(h.gateway.changes.isEmpty)
    }

    @Test("saved rows come back whole and in order: empty ones, one larger than a buffer, megabytes of them")
    func savedRowsInBuffers() {
        var rows: [[UInt8]] = [[], Array("{}".utf8), [UInt8](repeating: 0x61, count: 3 << 20), []]
        for i in 0..<20_000 { rows.append(Array("{\"id\":\"d\(i)\"}".utf8) + [UInt8](repeating: 0x20, count: i % 300)) }
        rows.append([UInt8](repeating: 0x62, count: (1 << 20) + 1))
        rows.append(Array("last".utf8))
        var saved = SavedDeviceRows()
        for row in rows { row.withUnsafeBufferPointer { saved.append($0) } }
        #expect(saved.count == rows.count)
        var read: [[UInt8]] = []
        saved.eachRow { read.append(Array($0)) }
        #expect(read == rows)
    }

    @Test("a saved device row that is not a device, or repeats another's id, FID and token, is refused naming the row")
    func damagedRows() throws {
        let h = try Harness(keepingChanges)
        _ = try h.device("android")
        let rows = h.gateway.allState()
        let good = try #require(rows.devices.first?.json)
        for (bad, expected) in [
            (Array("not json".utf8), "saved device 2 of 2 is damaged: not a JSON object"),
            (good, "saved device 2 of 2 is damaged: A device with this token or fid already exists."),
            (Array(#"{"platform":"android","app":"a.b"}"#.utf8), "saved device 2 of 2 is damaged: Missing required field 'fid'."),
        ] {
            var saved = SavedDeviceRows()
            good.withUnsafeBufferPointer { saved.append($0) }
            bad.withUnsafeBufferPointer { saved.append($0) }
            let copy = try Harness(keepingChanges)
            let error = #expect(throws: SeedError.self) {
                try copy.gateway.seed(
                    StateRows.fixture(projects: rows.projects), file: "db", savedDevices: ["demo-pushmock": saved])
            }
            #expect(error?.description.hasSuffix(expected) == true, "\(error?.description ?? "")")
        }
    }

    @Test("the rows put back together restore projects, keys, apps and devices with their states and topics")
    func roundTrip() throws {
        let h = try Harness(keepingChanges)
        let phone = try h.device("android")
        try h.device("ios", extra: #","app_state":"terminated""#)
        // Every state member away from its default, and one at it given anyway.
        let changed =
            #","app_state":"foreground","online":false,"notifications":"denied","low_power_mode":true,"#
            + #""presentation_options":["badge","list"],"auto_init_enabled":false,"apns_environment":"sandbox""#
        try h.device("ios", extra: changed)
        try h.device("android", extra: #","online":true,"presentation_options":["banner","list","sound"]"#)
        try h.subscribe(phone["id"] as! String, "news")
        let app = #"{"platform":"ios","app":"com.example.app","apns_environments":["production"]}"#
        #expect(h.call("POST", base + "/apps", body: app).status == 200)
        let rows = h.gateway.allState()
        // A state member at its default is left out of a row: a registration without it gets it.
        let stateNames = ["app_state", "online", "notifications", "low_power_mode", "presentation_options", "auto_init_enabled"]
        let saved = rows.devices.map { String(decoding: $0.json ?? [], as: UTF8.self) }
        #expect(saved.count == 4)
        #expect(stateNames.filter { saved[0].contains("\"\($0)\"") }.isEmpty, "\(saved[0])")
        #expect(stateNames.filter { saved[1].contains("\"\($0)\"") } == ["app_state"], "\(saved[1])")
        #expect(stateNames.allSatisfy { saved[2].contains("\"\($0)\"") }, "\(saved[2])")
        #expect(stateNames.filter { saved[3].contains("\"\($0)\"") }.isEmpty, "\(saved[3])")
        let copy = try Harness(keepingChanges)
        try copy.gateway.seed(saved: rows)
        func devices(_ h: Harness) -> [String] {
            let list = json(h.call("GET", base + "/devices"))["devices"] as? [[String: Any]] ?? []
            return list.map { d in
                (["id", "platform", "token", "fid", "apns_token", "apns_environment", "topics"] + stateNames).map {
                    "\(d[$0] ?? "nil")"
                }.joined(separator: "|")
            }
        }
        #expect(devices(copy) == devices(h) && devices(h).count == 4)
        let restored = (json(copy.call("GET", base + "/devices"))["devices"] as? [[String: Any]])?[2] ?? [:]
        #expect(restored["app_state"] as? String == "foreground" && restored["notifications"] as? String == "denied")
        #expect(restored["online"] as? Bool == false && restored["low_power_mode"] as? Bool == true)
        #expect(
            restored["presentation_options"] as? [String] == ["badge", "list"] && restored["auto_init_enabled"] as? Bool == false)
        let keys = { (h: Harness) in
            (json(h.call("GET", base + "/apnsKeys"))["keys"] as? [[String: Any]])?.map { $0["key_id"] as! String }
        }
        #expect(keys(copy) == keys(h))
    }
}
