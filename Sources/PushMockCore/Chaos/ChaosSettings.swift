import Foundation

/// The surfaces failure injection acts on, each with the errors the real service gives there.
public enum ChaosSurface: String, CaseIterable, Sendable {
    /// `/fcm/send`, `/gcm/send`.
    case legacy
    /// `/v1/projects/{p}/messages:send`.
    case v1
    /// Topic management: the Instance ID API and HTTP v1's topicSubscriptions.
    case topics
    /// `POST /3/device/{token}`.
    case apns
    /// The Web Push endpoints of the three browser push services.
    case webpush

    var index: Int {
        switch self {
        case .legacy: 0
        case .v1: 1
        case .topics: 2
        case .apns: 3
        case .webpush: 4
        }
    }

    /// What the surface covers, as the dashboard names it.
    public var label: String {
        switch self {
        case .legacy: "/fcm/send"
        case .v1: "FCM v1 messages:send"
        case .topics: "topic management"
        case .apns: "APNs /3/device"
        case .webpush: "Web Push endpoints"
        }
    }

    /// The error names a surface may inject; the first is the default.
    /// Legacy: `Unavailable` and `InternalServerError` are per-recipient results (HTTP 200),
    /// `503` and `500` are the whole request's status.
    public var errors: [String] {
        switch self {
        case .legacy: ["Unavailable", "InternalServerError", "503", "500"]
        case .v1: ["UNAVAILABLE", "QUOTA_EXCEEDED", "INTERNAL"]
        case .topics: ["UNAVAILABLE", "RESOURCE_EXHAUSTED", "INTERNAL"]
        case .apns: ["ServiceUnavailable", "TooManyRequests", "InternalServerError", "Shutdown", "Unregistered"]
        // Statuses, each answered in the service's words (autopush answers 429 as 503).
        case .webpush: ["503", "429", "500", "410"]
        }
    }

    /// The errors that fail one recipient of a send (legacy results with HTTP 200), rolled per
    /// recipient; the others fail the whole request.
    public var perRecipientErrors: Set<String> { self == .legacy ? ["Unavailable", "InternalServerError"] : [] }
}

/// How an injected dropped connection ends: the TCP connection closed with no reply, or (over
/// HTTP/2) a GOAWAY whose last stream id excludes the request, then the close.
public enum DropMode: String, Sendable {
    case close, goaway
}

/// One surface's failure injection. Every roll is independent: a request is dropped with
/// `dropRate`, else fails with `errorRate`, and whatever it gets is answered after
/// `latencyMs` plus up to `jitterMs`.
public struct SurfaceChaos: Sendable, Equatable {
    public var errorRate = 0.0
    public var error: String
    /// Seconds in `Retry-After` on 503s and 429s.
    public var retryAfter = 10
    public var latencyMs = 0.0
    public var jitterMs = 0.0
    public var dropRate = 0.0
    public var drop = DropMode.close

    public init(surface: ChaosSurface) { error = surface.errors[0] }

    static let fields = ["error_rate", "error", "retry_after", "latency_ms", "jitter_ms", "drop_rate", "drop"]

    /// Sets one field from its text (a flag) or JSON value; the problem, if any, as a sentence.
    mutating func set(_ field: String, _ value: JSONValue, surface: ChaosSurface) throws(ChaosSettingsError) {
        let name = "\(surface.rawValue).\(field)"
        func number(_ range: ClosedRange<Double>) throws(ChaosSettingsError) -> Double {
            let n = value.numberValue?.double ?? value.stringValue.flatMap(Double.init)
            guard let n, range.contains(n) else {
                throw ChaosSettingsError(
                    "'\(name)' must be a number in \(Self.text(range.lowerBound))...\(Self.text(range.upperBound)).")
            }
            return n
        }
        switch field {
        case "error_rate": errorRate = try number(0...1)
        case "drop_rate": dropRate = try number(0...1)
        case "latency_ms": latencyMs = try number(0...60_000)
        case "jitter_ms": jitterMs = try number(0...60_000)
        case "retry_after":
            let n = try number(0...86_400)
            guard n.rounded() == n else { throw ChaosSettingsError("'\(name)' must be a whole number of seconds.") }
            retryAfter = Int(n)
        case "error":
            guard let e = value.stringValue ?? value.numberValue?.text, surface.errors.contains(e) else {
                throw ChaosSettingsError("'\(name)' must be one of \(surface.errors.joined(separator: ", ")).")
            }
            error = e
        case "drop":
            guard let m = value.stringValue.flatMap(DropMode.init(rawValue:)) else {
                throw ChaosSettingsError("'\(name)' must be close or goaway.")
            }
            drop = m
        default:
            throw ChaosSettingsError("Unknown field '\(name)': use \(Self.fields.joined(separator: ", ")).")
        }
    }

    private static func text(_ d: Double) -> String { d.rounded() == d ? String(Int(d)) : String(d) }

    func write(_ w: inout JSONWriter) {
        w.beginObject()
        w.key("error_rate")
        w.double(errorRate)
        w.member("error", error)
        w.member("retry_after", retryAfter)
        w.key("latency_ms")
        w.double(latencyMs)
        w.key("jitter_ms")
        w.double(jitterMs)
        w.key("drop_rate")
        w.double(dropRate)
        w.member("drop", drop.rawValue)
        w.endObject()
    }
}

public struct ChaosSettingsError: Error, Equatable {
    public let message: String
    init(_ message: String) { self.message = message }
}

/// A project's failure injection: settings per surface (absent = none). `--chaos` gives every
/// project its starting settings; `PUT /emulator/v1/projects/{p}/chaos` replaces them.
public struct ChaosSettings: Sendable, Equatable {
    /// By `ChaosSurface` case, in `allCases` order: every send looks its surface up, and a
    /// String-backed enum as a dictionary key would hash its name each time.
    private var surfaces = [SurfaceChaos?](repeating: nil, count: ChaosSurface.allCases.count)
    /// One bit a surface with settings: every request asks for its surface's, and most find
    /// none, which the bit says without copying the empty settings out of the array.
    private var setBits: UInt32 = 0

    public init() {}

    public subscript(surface: ChaosSurface) -> SurfaceChaos? {
        get { setBits & (1 << surface.index) == 0 ? nil : surfaces[surface.index] }
        set {
            surfaces[surface.index] = newValue
            if newValue == nil { setBits &= ~(1 << surface.index) } else { setBits |= 1 << surface.index }
        }
    }

    /// `--chaos legacy.error_rate=0.2,legacy.error=503,apns.latency_ms=50`: the JSON fields
    /// as `surface.field=value`, comma-separated.
    public static func parse(flag: String) throws(ChaosSettingsError) -> ChaosSettings {
        var settings = ChaosSettings()
        for item in flag.split(separator: ",") where !item.allSatisfy(\.isWhitespace) {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let path = pair[0].split(separator: ".", maxSplits: 1).map(String.init)
            guard pair.count == 2, path.count == 2 else {
                throw ChaosSettingsError("'\(item)' is not surface.field=value (e.g. legacy.error_rate=0.1).")
            }
            try settings.set(path[0], path[1], .string(pair[1]))
        }
        return settings
    }

    /// The control API's body: `{"legacy": {"error_rate": 0.2, ...}, "apns": {...}}`.
    public static func parse(json: JSONObject) throws(ChaosSettingsError) -> ChaosSettings {
        var settings = ChaosSettings()
        for entry in json.entries {
            let (name, value) = (entry.key, entry.value)
            guard let fields = value.objectValue else {
                throw ChaosSettingsError(
                    ChaosSurface(rawValue: name) == nil
                        ? "Unknown surface '\(name)': use legacy, v1, topics, apns or webpush."
                        : "'\(name)' must be an object of settings.")
            }
            if fields.isEmpty, ChaosSurface(rawValue: name) != nil { continue }
            for entry in fields.entries { try settings.set(name, entry.key, entry.value) }
        }
        return settings
    }

    private mutating func set(_ surfaceName: String, _ field: String, _ value: JSONValue) throws(ChaosSettingsError) {
        guard let surface = ChaosSurface(rawValue: surfaceName) else {
            throw ChaosSettingsError("Unknown surface '\(surfaceName)': use legacy, v1, topics, apns or webpush.")
        }
        var s = self[surface] ?? SurfaceChaos(surface: surface)
        try s.set(field, value, surface: surface)
        self[surface] = s
    }

    /// Every surface, configured or not, so a reader sees the whole picture.
    func write(_ w: inout JSONWriter) {
        w.beginObject()
        for surface in ChaosSurface.allCases {
            w.key(JSONKey(surface.rawValue))
            (self[surface] ?? SurfaceChaos(surface: surface)).write(&w)
        }
        w.endObject()
    }
}
