import Foundation

/// Counters for `GET /metrics` that are cheap to keep on the hot path: requests by route and
/// status, and a histogram of the time the gateway took to answer. Loop thread only.
struct Metrics {
    /// Upper bounds of the latency buckets, in seconds (Prometheus `le`).
    static let bounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1]
    /// Requests by `route << 10 | status` (route -1 is "no route"), in the order first seen.
    /// Routes and statuses are pushmock's own, so there are a few dozen pairs: a request's is
    /// most often the last one counted, else found by a scan (a dictionary would hash the key
    /// on every request).
    private(set) var requests: [(key: Int, count: Int)] = []
    private var lastCounted = 0
    var buckets = [Int](repeating: 0, count: Metrics.bounds.count + 1)
    var latencySum = 0.0
    var latencyCount = 0
    mutating func record(route: Int, status: Int, seconds: Double) {
        let key = (route + 1) << 10 | status
        if lastCounted >= requests.count || requests[lastCounted].key != key {
            lastCounted = requests.firstIndex { $0.key == key } ?? requests.count
            if lastCounted == requests.count { requests.append((key, 0)) }
        }
        requests[lastCounted].count += 1
        var i = 0
        while i < Self.bounds.count, seconds > Self.bounds[i] { i += 1 }
        buckets[i] += 1
        latencySum += seconds
        latencyCount += 1
    }

}
