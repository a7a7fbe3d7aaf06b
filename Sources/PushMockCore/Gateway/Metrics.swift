import Foundation

/// Counters for `GET /metrics` that are cheap to keep on the hot path: requests by route and
/// status, and a histogram of the time the gateway took to answer. Loop thread only.
struct Metrics {
    /// Upper bounds of the latency buckets, in seconds (Prometheus `le`).
    static let bounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1]
    /// Requests by `route << 10 | status`; route -1 is "no route".
    var requests: [Int: Int] = [:]
    var buckets = [Int](repeating: 0, count: Metrics.bounds.count + 1)
    var latencySum = 0.0
    var latencyCount = 0
    mutating func record(route: Int, status: Int, seconds: Double) {
        requests[(route + 1) << 10 | status, default: 0] += 1
        var i = 0
        while i < Self.bounds.count, seconds > Self.bounds[i] { i += 1 }
        buckets[i] += 1
        latencySum += seconds
        latencyCount += 1
    }

}
