/// `GET /metrics` in Prometheus' text format (version 0.0.4).
extension Gateway {
    /// `GET /metrics`: the gateway's request counters, the log's counts, sends accepted and
    /// open streams.
    func metricsPage() -> Reply {
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
            sample(
                "pushmock_http_requests_total",
                [
                    ("route", route >= 0 ? routeNames[route] : "unmatched"),
                    ("status", key & 1023 == 0 ? "dropped" : String(key & 1023)),
                ], n)
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
        for (api, n) in delivery.acceptedByAPI.sorted(by: { $0.api < $1.api }) {
            sample("pushmock_messages_accepted_total", [("api", api)], n)
        }
        family("pushmock_events_total", "counter", "Events logged, by event (evicted ones included).")
        for kind in EventKind.allCases { sample("pushmock_events_total", [("event", kind.rawValue)], log.kindCounts[kind]) }
        family("pushmock_event_reasons_total", "counter", "Events logged with a reason, by event and reason.")
        for (key, n) in log.reasonCounts.sorted(by: {
            ($0.key.kind.rawValue, $0.key.reason) < ($1.key.kind.rawValue, $1.key.reason)
        }) {
            sample("pushmock_event_reasons_total", [("event", key.kind.rawValue), ("reason", key.reason)], n)
        }
        family("pushmock_devices", "gauge", "Registered devices, by project and platform.")
        family("pushmock_topics", "gauge", "Topics with at least one subscriber, by project.")
        family("pushmock_topic_subscriptions", "gauge", "Device-topic subscriptions, by project.")
        for p in directory.all.sorted(by: { $0.id < $1.id }) {
            for platform in [Platform.android, .ios, .web] {
                sample(
                    "pushmock_devices", [("project", p.id), ("platform", platform.rawValue)],
                    p.devices.inOrder.reduce(0) { $0 + ($1.platform == platform ? 1 : 0) })
            }
            sample("pushmock_topics", [("project", p.id)], p.topics.count)
            sample("pushmock_topic_subscriptions", [("project", p.id)], p.topics.subscriptionCount)
        }
        family("pushmock_event_log_events", "gauge", "Events held in the log.")
        sample("pushmock_event_log_events", [], log.count)
        family("pushmock_event_log_capacity", "gauge", "Events the log holds before evicting (--max-events).")
        sample("pushmock_event_log_capacity", [], log.capacity)
        family(
            "pushmock_event_log_evicted_total", "counter", "Events evicted: to make room (--max-events) or for age (--max-age).")
        sample("pushmock_event_log_evicted_total", [("cause", "room")], log.evictedForRoom)
        sample("pushmock_event_log_evicted_total", [("cause", "age")], log.evictedForAge)
        family("pushmock_stream_clients", "gauge", "Open event streams (SSE and NDJSON exports).")
        sample("pushmock_stream_clients", [], readers.streamClients)
        return .response(
            Response(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Array(out.utf8)))
    }

    static func escapeLabel(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
