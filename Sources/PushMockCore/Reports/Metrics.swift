import Foundation

/// Counters for `GET /metrics` that are cheap to keep on the hot path: requests by route and
/// status, and a histogram of the time the gateway took to answer. Loop thread only.
public struct Metrics {
    /// Upper bounds of the latency buckets, in seconds (Prometheus `le`).
    static let bounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1]
    /// Requests by `route << 10 | status`; route -1 is "no route".
    var requests: [Int: Int] = [:]
    var buckets = [Int](repeating: 0, count: Metrics.bounds.count + 1)
    var latencySum = 0.0
    var latencyCount = 0
    /// Sends accepted, by API (legacy, v1, apns).
    var accepted: [String: Int] {
        Dictionary(acceptedByAPI.map { ($0.api, $0.count) }, uniquingKeysWith: +)
    }
    /// The same as pairs: three APIs, found by a scan (every send counts one; hashing the
    /// name cost more).
    private(set) var acceptedByAPI: [(api: String, count: Int)] = []

    mutating func countAccepted(_ api: String) {
        if let i = acceptedByAPI.firstIndex(where: { $0.api == api }) {
            acceptedByAPI[i].count += 1
        } else {
            acceptedByAPI.append((api, 1))
        }
    }
    /// Open event streams (SSE and exports); the server keeps it current.
    public var streamClients = 0

    mutating func record(route: Int, status: Int, seconds: Double) {
        requests[(route + 1) << 10 | status, default: 0] += 1
        var i = 0
        while i < Self.bounds.count, seconds > Self.bounds[i] { i += 1 }
        buckets[i] += 1
        latencySum += seconds
        latencyCount += 1
    }

    /// Nanoseconds on a clock that never steps.
    public static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// `GET /metrics` in Prometheus' text format (version 0.0.4).
extension Gateway {
    func metricsText() -> Reply {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
            let l = labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
            out += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(l)} \(value)\n"
        }
        family("pushmock_http_requests_total", "counter", "Requests the gateway answered, by route and status.")
        for (key, n) in metrics.requests.sorted(by: { $0.key < $1.key }) {
            let route = (key >> 10) - 1
            sample("pushmock_http_requests_total", [("route", route >= 0 ? routeNames[route] : "unmatched"),
                                                    ("status", key & 1023 == 0 ? "dropped" : String(key & 1023))], n)
        }
        family("pushmock_http_request_duration_seconds", "histogram", "Time the gateway took to answer a request.")
        var cumulative = 0
        for (i, bound) in Metrics.bounds.enumerated() {
            cumulative += metrics.buckets[i]
            sample("pushmock_http_request_duration_seconds_bucket", [("le", String(bound))], cumulative)
        }
        sample("pushmock_http_request_duration_seconds_bucket", [("le", "+Inf")], metrics.latencyCount)
        out += "pushmock_http_request_duration_seconds_sum \(metrics.latencySum)\n"
        sample("pushmock_http_request_duration_seconds_count", [], metrics.latencyCount)
        family("pushmock_messages_accepted_total", "counter", "Sends accepted, by API.")
        for (api, n) in metrics.accepted.sorted(by: { $0.key < $1.key }) { sample("pushmock_messages_accepted_total", [("api", api)], n) }
        family("pushmock_events_total", "counter", "Events logged, by event (evicted ones included).")
        for kind in EventKind.allCases { sample("pushmock_events_total", [("event", kind.rawValue)], log.kindCounts[kind]) }
        family("pushmock_event_reasons_total", "counter", "Events logged with a reason, by event and reason.")
        for (key, n) in log.reasonCounts.sorted(by: { ($0.key.kind.rawValue, $0.key.reason) < ($1.key.kind.rawValue, $1.key.reason) }) {
            sample("pushmock_event_reasons_total", [("event", key.kind.rawValue), ("reason", key.reason)], n)
        }
        family("pushmock_devices", "gauge", "Registered devices, by project and platform.")
        family("pushmock_topics", "gauge", "Topics with at least one subscriber, by project.")
        family("pushmock_topic_subscriptions", "gauge", "Device-topic subscriptions, by project.")
        for p in projects.values.sorted(by: { $0.id < $1.id }) {
            for platform in [Platform.android, .ios] {
                sample("pushmock_devices", [("project", p.id), ("platform", platform.rawValue)],
                       p.deviceOrder.reduce(0) { $0 + ($1.platform == platform ? 1 : 0) })
            }
            sample("pushmock_topics", [("project", p.id)], p.topics.count)
            sample("pushmock_topic_subscriptions", [("project", p.id)], p.topics.values.reduce(0) { $0 + $1.count })
        }
        family("pushmock_event_log_events", "gauge", "Events held in the log.")
        sample("pushmock_event_log_events", [], log.count)
        family("pushmock_event_log_capacity", "gauge", "Events the log holds before evicting (--max-events).")
        sample("pushmock_event_log_capacity", [], log.capacity)
        family("pushmock_event_log_evicted_total", "counter", "Events evicted: to make room (--max-events) or for age (--max-age).")
        sample("pushmock_event_log_evicted_total", [("cause", "room")], log.evictedForRoom)
        sample("pushmock_event_log_evicted_total", [("cause", "age")], log.evictedForAge)
        family("pushmock_stream_clients", "gauge", "Open event streams (SSE and NDJSON exports).")
        sample("pushmock_stream_clients", [], metrics.streamClients)
        return .response(Response(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                                  body: Array(out.utf8)))
    }

    static func escapeLabel(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
