/// Reads a bridge from `POST .../bridges` (and fixtures), checking every field before
/// anything changes (docs/bridges.md, "Configuration").
enum BridgeConfig {
    static func parse(
        _ obj: JSONObject, in project: Project, bridges: Bridges, random: RandomSource
    ) throws(ControlError) -> Bridge {
        let given = ["webhook", "simulator", "command"].filter { obj[$0] != nil && obj[$0] != .null }
        guard given.count == 1, let kind = given.first, let spec = obj[kind]?.objectValue else {
            throw Control.invalid("A bridge needs exactly one of 'webhook', 'simulator' or 'command', as an object.")
        }
        let id = try Control.string(obj, "id") ?? bridges.nextID(in: project.id)
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(isIDByte) else {
            throw Control.invalid("Invalid value at 'id': use 1-64 letters, digits, '-' or '_'.")
        }
        if bridges.bridge(project.id, id) != nil { throw Control.conflict("A bridge with id \(id) already exists.") }
        if let full = bridges.full(project.id) { throw Control.failedPrecondition(full) }
        let scope = try scope(obj, project)
        let sdkDevicesOnly = try Control.bool(obj, "sdk_devices") ?? false
        let queueLimit = try int(obj, "queue_limit", 1...100_000) ?? Bridge.defaultQueueLimit
        let target: Bridge.Target
        switch kind {
        case "webhook": target = try webhook(spec, random)
        case "simulator": target = try simulator(spec, scope, project, eachDevicesApp: sdkDevicesOnly)
        default: target = try command(spec, bridges)
        }
        var allowed = Bridge.fateEvents
        if case .simulator = target { allowed = Bridge.shownEvents }
        let events = try events(obj, allowed: allowed) ?? allowed
        return Bridge(
            id: id, projectID: project.id, scope: scope, events: events, target: target, queueLimit: queueLimit,
            sdkDevicesOnly: sdkDevicesOnly)
    }

    private static func isIDByte(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
    }

    private static func scope(_ obj: JSONObject, _ project: Project) throws(ControlError) -> Bridge.Scope {
        let device = try Control.string(obj, "device")
        let topic = try Control.string(obj, "topic")
        if let app = try Control.string(obj, "app") {
            guard device == nil, topic == nil else { throw Control.invalid("Give one of 'device', 'topic' or 'app'.") }
            guard !app.isEmpty, app.utf8.count <= 512 else { throw Control.invalid("Invalid value at 'app': \"\(app)\".") }
            return .app(app)
        }
        switch (device, topic) {
        case (let d?, nil):
            guard project.devices[d] != nil else { throw Control.invalid("No device \(d) in project \(project.id).") }
            return .device(d)
        case (nil, let t?):
            let name = Topic.bareName(t)
            guard Topic.isValidName(name) else {
                throw Control.invalid("Invalid topic name '\(t)': it must match [a-zA-Z0-9-_.~%]+.")
            }
            return .topic(name)
        case (nil, nil): return .project
        default: throw Control.invalid("Give 'device' or 'topic', not both (neither: every device of the project).")
        }
    }

    private static func events(_ obj: JSONObject, allowed: Set<EventKind>) throws(ControlError) -> Set<EventKind>? {
        guard let v = obj["events"], v != .null else { return nil }
        let names = EventKind.allCases.filter { allowed.contains($0) }.map(\.rawValue).joined(separator: ", ")
        guard let items = v.arrayValue, !items.isEmpty else {
            throw Control.invalid("Invalid value at 'events': a non-empty list of \(names).")
        }
        var kinds: Set<EventKind> = []
        for item in items {
            guard let kind = item.stringValue.flatMap(EventKind.init), allowed.contains(kind) else {
                throw Control.invalid("Invalid value at 'events': \(JSONWriter.quotedJSON(item)) is not one of \(names).")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    private static func webhook(_ spec: JSONObject, _ random: RandomSource) throws(ControlError) -> Bridge.Target {
        try only(spec, ["url", "secret", "timeout_seconds", "max_attempts"], in: "webhook")
        guard let url = try Control.string(spec, "url") else { throw Control.invalid("Missing required field 'webhook.url'.") }
        if let problem = Bridge.webhookURLProblem(url) { throw Control.invalid("Invalid value at 'webhook.url': \(problem)") }
        let secret = try Control.string(spec, "secret") ?? random.hex(32)
        guard !secret.isEmpty else { throw Control.invalid("Invalid value at 'webhook.secret': empty.") }
        return .webhook(
            Bridge.Webhook(
                url: url, secret: secret, timeoutSeconds: try seconds(spec, "timeout_seconds", in: "webhook") ?? 5,
                maxAttempts: try int(spec, "max_attempts", 1...100, in: "webhook") ?? 8))
    }

    private static func simulator(
        _ spec: JSONObject, _ scope: Bridge.Scope, _ project: Project, eachDevicesApp: Bool
    ) throws(ControlError) -> Bridge.Target {
        try only(spec, ["udid", "bundle_id"], in: "simulator")
        let udid = try Control.string(spec, "udid") ?? "booted"
        guard !udid.isEmpty, !udid.hasPrefix("-"), udid.utf8.count <= 64 else {
            throw Control.invalid("Invalid value at 'simulator.udid': \"\(udid)\".")
        }
        var bundleID = try Control.string(spec, "bundle_id")
        if case .device(let id) = scope, let d = project.devices[id] {
            guard d.platform == .ios else {
                throw Control.invalid("A Simulator bridge needs an iOS device; \(id) is \(d.platform.rawValue).")
            }
            bundleID = bundleID ?? d.app
        }
        if case .app(let app) = scope { bundleID = bundleID ?? app }
        // Linked to every app its SDK registered: each goes to its own app.
        if bundleID == nil, eachDevicesApp { return .simulator(udid: udid, bundleID: nil) }
        guard let bundleID else { throw Control.invalid("Missing required field 'simulator.bundle_id' (the app's bundle id).") }
        guard !bundleID.isEmpty, !bundleID.hasPrefix("-"), (try? DeviceRegistration.checkApp(bundleID, on: .ios)) != nil else {
            throw Control.invalid(
                "Invalid value at 'simulator.bundle_id': \(JSONWriter.quotedJSON(.string(String(bundleID.prefix(200))))) is not a bundle id (at most 155 letters, digits, '-' and '.')."
            )
        }
        return .simulator(udid: udid, bundleID: bundleID)
    }

    private static func command(_ spec: JSONObject, _ bridges: Bridges) throws(ControlError) -> Bridge.Target {
        try only(spec, ["argv", "timeout_seconds", "concurrency"], in: "command")
        guard let items = spec["argv"]?.arrayValue, !items.isEmpty,
            case let argv = items.compactMap(\.stringValue), argv.count == items.count, !argv[0].isEmpty
        else { throw Control.invalid("Invalid value at 'command.argv': the program and its arguments, as a list of strings.") }
        guard bridges.mayRun(argv[0]) else {
            throw Control.permissionDenied(
                "Command bridges run only the programs pushmock was started to allow; \(JSONWriter.quotedJSON(.string(argv[0]))) is not one of them (start it with --allow-command \(argv[0]), or * for any; docs/exposure.md)."
            )
        }
        return .command(
            Bridge.Command(
                argv: argv, timeoutSeconds: try seconds(spec, "timeout_seconds", in: "command") ?? 10,
                concurrency: try int(spec, "concurrency", 1...32, in: "command") ?? 2))
    }

    private static func only(_ spec: JSONObject, _ names: Set<String>, in part: String) throws(ControlError) {
        if let unknown = spec.keys.first(where: { !names.contains($0) }) {
            throw Control.invalid("Invalid JSON payload received. Unknown name \"\(part).\(unknown)\": Cannot find field.")
        }
    }

    private static func int(
        _ obj: JSONObject, _ name: String, _ range: ClosedRange<Int>, in part: String? = nil
    ) throws(ControlError) -> Int? {
        guard let v = obj[name], v != .null else { return nil }
        guard let n = v.numberValue?.int, range.contains(n) else {
            throw Control.invalid(
                "Invalid value at '\(part.map { $0 + "." } ?? "")\(name)': \(JSONWriter.quotedJSON(v)) is not a whole number in \(range.lowerBound)...\(range.upperBound)."
            )
        }
        return n
    }

    private static func seconds(_ obj: JSONObject, _ name: String, in part: String) throws(ControlError) -> Double? {
        guard let v = obj[name], v != .null else { return nil }
        guard let s = v.numberValue?.double, s >= 0.1, s <= 300 else {
            throw Control.invalid(
                "Invalid value at '\(part).\(name)': \(JSONWriter.quotedJSON(v)) is not a number of seconds in 0.1...300.")
        }
        return s
    }
}
