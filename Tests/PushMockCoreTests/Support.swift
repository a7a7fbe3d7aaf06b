import Foundation

@testable import PushMockCore

/// A gateway on a manual clock (unless given another) with seeded randomness, and helpers to
/// call it in-process.
final class Harness {
    let gateway: Gateway
    static let start: Timestamp = 1_800_000_000_000_000

    /// Raised for `shutdown` tests.
    let shutdown = ShutdownFlag()

    init(
        keys: (any KeyService)? = nil, webPush: (any WebPushCrypto)? = nil, carrier: (any BridgeCarrier)? = nil,
        clock: Clock = Clock(mode: .manual, start: Harness.start), _ configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        var c = Configuration()
        configure(&c)
        gateway = try Gateway(
            configuration: c, clock: clock, seed: 7,
            services: ServerServices(keys: keys, webPush: webPush, shutdown: shutdown, bridgeCarrier: carrier))
    }

    var project: Project { gateway.directory.defaultProject }

    func call(
        _ method: String, _ target: String, body: String? = nil, contentType: String? = "application/json",
        headers: [(name: String, value: String)] = [], connection: ConnectionContext? = nil
    ) -> Response {
        var h = headers
        if let contentType, body != nil { h.append(("Content-Type", contentType)) }
        var request = Request(method: method, target: target, headers: h, body: Array((body ?? "").utf8))
        request.connection = connection
        return answer(gateway.handle(request))
    }

    /// A reply as the client would read it in full.
    func answer(_ reply: Reply) -> Response {
        switch reply {
        case .response(let r): return r
        case .waitForEvents(let w): return answer(gateway.readers.finish(w))
        case .paged(let answer): return answer.whole()
        case .stream(var s):
            // An export or a long list, read to its end; a live stream gives its head.
            var r = s.head
            while !s.live {
                let (bytes, finished) = gateway.readers.streamNext(&s)
                r.body += bytes
                if finished { break }
            }
            return r
        case .delayed(let r, _): return r
        case .sliced(let work): return work.finish()
        case .drop(let mode): return Response(status: 0, headers: [("x-pushmock-dropped", mode.rawValue)])
        // The handshake is the transport's: in process, the route took it.
        case .webSocket: return Response(status: 101)
        }
    }

    /// An `Authorization` header with an access token of the default project (both scopes).
    func bearer() -> [(name: String, value: String)] {
        gateway.credentials.add(
            accessToken: "ya29.harness", AccessToken(projectID: project.id, email: "harness", expires: Self.start + 3_600_000_000)
        )
        return [("Authorization", "Bearer ya29.harness")]
    }

    /// POST /fcm/send with the default key.
    func send(_ body: String, contentType: String? = "application/json", key: String? = Configuration.defaultServerKey)
        -> Response
    {
        call(
            "POST", "/fcm/send", body: body, contentType: contentType,
            headers: key.map { [("Authorization", "key=\($0)")] } ?? [])
    }

    /// Registers a device; throws unless the gateway answers 201.
    @discardableResult
    func device(_ platform: String, app: String = "com.example.app", project: String = "demo-pushmock", extra: String = "") throws
        -> [String: Any]
    {
        let r = call(
            "POST", "/emulator/v1/projects/\(project)/devices",
            body: "{\"platform\":\"\(platform)\",\"app\":\"\(app)\"\(extra)}")
        try HarnessError.expect(r, 201)
        return json(r)
    }

    func subscribe(_ deviceID: String, _ topic: String) throws {
        try HarnessError.expect(call("POST", "/emulator/v1/projects/demo-pushmock/devices/\(deviceID)/topics/\(topic)"), 200)
    }

    func events(_ query: String = "") throws -> [[String: Any]] {
        let r = call("GET", "/emulator/v1/projects/demo-pushmock/events?limit=100000" + query)
        guard let events = json(r)["events"] as? [[String: Any]] else { throw HarnessError("no events in: " + r.bodyText) }
        return events
    }

    func eventNames(_ query: String = "") throws -> [String] { try events(query).map { $0["event"] as? String ?? "?" } }

    @discardableResult
    func patch(_ deviceID: String, _ body: String) throws -> [String: Any] {
        let r = call("PATCH", "/emulator/v1/projects/demo-pushmock/devices/\(deviceID)", body: body)
        try HarnessError.expect(r, 200)
        return json(r)
    }

    func advance(_ seconds: Double) throws {
        try HarnessError.expect(call("POST", "/emulator/v1/clock:advance", body: "{\"seconds\":\(seconds)}"), 200)
    }

    /// Sends `body` (a JSON object's members, without braces) to one device's token and
    /// returns the recipient's message id.
    @discardableResult
    func push(_ token: String, _ members: String) -> String {
        let r = json(send("{\"to\":\"\(token)\",\(members)}"))
        return ((r["results"] as? [[String: Any]])?.first?["message_id"] as? String) ?? "error: \(r)"
    }

    /// Event names for one device, oldest first, without the MESSAGE_ prefix.
    func story(_ deviceID: String) throws -> [String] {
        try events("&device=\(deviceID)").map { e in
            let name = (e["event"] as? String ?? "?").replacingOccurrences(of: "MESSAGE_", with: "")
            return (e["reason"] as? String).map { name + "(" + $0 + ")" } ?? name
        }
    }

    func inbox(_ deviceID: String) throws -> [[String: Any]] {
        let r = call("GET", "/emulator/v1/projects/demo-pushmock/devices/\(deviceID)/notifications")
        guard let entries = json(r)["notifications"] as? [[String: Any]] else {
            throw HarnessError("no notifications in: " + r.bodyText)
        }
        return entries
    }
}

/// A harness call that did not go as the test needs: the test fails with this, the suite goes on.
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// Throws unless the response has `status`.
    static func expect(_ r: Response, _ status: Int) throws {
        guard r.status == status else { throw HarnessError("expected \(status), got \(r.status): \(r.bodyText)") }
    }
}

func json(_ r: Response) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
}

func json(_ text: String) -> Any? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

extension Gateway {
    /// Resumes saved rows as a restart does: the projects' fixture, each device from its row.
    func seed(saved rows: StateRows) throws {
        var devices: [String: SavedDeviceRows] = [:]
        for row in rows.devices {
            row.json?.withUnsafeBufferPointer { devices[row.projectID, default: SavedDeviceRows()].append($0) }
        }
        try seed(StateRows.fixture(projects: rows.projects), file: "saved state", savedDevices: devices)
    }
}
