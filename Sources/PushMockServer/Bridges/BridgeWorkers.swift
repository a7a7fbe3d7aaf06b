internal import COpenSSL
import Foundation
import Glibc
import PushMockCore

/// The bridges' carrier: one lane per bridge with a queue bounded by count and by bytes (all
/// lanes' bytes too) and its own threads, so a dead or slow webhook only ever fills its own
/// queue and never touches the loop (docs/bridges.md). Webhooks retry with exponential back-off; commands and the Simulator
/// run once. Finished attempts wait here until the loop collects them.
final class BridgeWorkers: BridgeCarrier, @unchecked Sendable {
    /// Guards everything below; workers wait on it.
    private let condition = NSCondition()
    private var lanes: [String: Lane] = [:]
    private var finished: [BridgeAttempt] = []
    private var stopping = false
    /// Worker threads not yet ended.
    private var running = 0
    /// What every lane's waiting deliveries hold (`BridgeDelivery.heldBytes`).
    private var heldBytes = 0
    private let webhooks: WebhookClient

    /// One bridge's waiting deliveries; guarded by `condition`.
    private final class Lane: @unchecked Sendable {
        var waiting: [BridgeDelivery] = []
        var heldBytes = 0
        var retired = false
    }

    init(authorityPath: String?) {
        webhooks = WebhookClient(extraAuthority: authorityPath)
    }

    func hasRoom(_ bridge: Bridge) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping, heldBytes < BridgeDelivery.totalHeldLimit, let lane = lanes[bridge.key] else { return !stopping }
        return lane.waiting.count < bridge.queueLimit && lane.heldBytes < BridgeDelivery.heldLimitPerBridge
    }

    func carry(_ delivery: BridgeDelivery) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        let key = delivery.bridge.key
        let lane = lanes[key] ?? start(key, delivery.bridge)
        let size = delivery.heldBytes
        guard lane.waiting.count < delivery.bridge.queueLimit, lane.heldBytes + size <= BridgeDelivery.heldLimitPerBridge,
            heldBytes + size <= BridgeDelivery.totalHeldLimit
        else { return false }
        lane.waiting.append(delivery)
        lane.heldBytes += size
        heldBytes += size
        condition.broadcast()
        return true
    }

    func finishedAttempts() -> [BridgeAttempt] {
        condition.lock()
        defer { condition.unlock() }
        let done = finished
        finished.removeAll()
        return done
    }

    func retire(bridgeID key: String) {
        condition.lock()
        if let lane = lanes[key] {
            lane.retired = true
            heldBytes -= lane.heldBytes
            lane.heldBytes = 0
            lane.waiting.removeAll()
        }
        lanes[key] = nil
        condition.broadcast()
        condition.unlock()
    }

    /// At shutdown: workers finish the attempt they are in and stop; what waits is dropped.
    /// Waits for them to end (up to `stopGrace`), each having released its own OpenSSL state,
    /// so nothing of theirs is left when the process exits.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: Self.stopGrace)
        while running > 0, condition.wait(until: deadline) {}
        condition.unlock()
    }

    static let stopGrace = 2.0

    /// Called with the lock held.
    private func start(_ key: String, _ bridge: Bridge) -> Lane {
        let lane = Lane()
        lanes[key] = lane
        var threads = 1
        if case .command(let c) = bridge.target { threads = c.concurrency }
        for _ in 0..<threads {
            running += 1
            let thread = Thread { [self] in
                work(lane)
                // The thread's OpenSSL state (its random generators, made by a webhook's TLS)
                // goes now, before `stop` lets the process exit.
                OPENSSL_thread_stop()
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            thread.name = "pushmock-bridge-\(bridge.id)"
            thread.start()
        }
        return lane
    }

    private func work(_ lane: Lane) {
        while let delivery = next(lane) {
            switch delivery.bridge.target {
            case .webhook(let hook): deliver(delivery, hook, lane)
            case .simulator(let udid, _): inject(delivery, udid: udid, bundleID: delivery.simulatorBundleID ?? "")
            case .command(let c): runCommand(delivery, c)
            }
        }
    }

    /// The next delivery, waiting for one; nil when the lane is retired or the server stops.
    private func next(_ lane: Lane) -> BridgeDelivery? {
        condition.lock()
        defer { condition.unlock() }
        while lane.waiting.isEmpty, !lane.retired, !stopping { condition.wait() }
        if lane.retired || stopping { return nil }
        let d = lane.waiting.removeFirst()
        lane.heldBytes -= d.heldBytes
        heldBytes -= d.heldBytes
        return d
    }

    private func record(_ attempt: BridgeAttempt) {
        condition.lock()
        finished.append(attempt)
        condition.unlock()
    }

    /// Waits `seconds` unless the lane is retired or the server stops first; false then.
    private func pause(_ seconds: Double, _ lane: Lane) -> Bool {
        let until = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !lane.retired, !stopping, condition.wait(until: until) {}
        return !lane.retired && !stopping
    }

    /// Back-off before attempt n+1: 0.5 s, doubling, at most 30 s.
    static func backoff(after attempt: Int) -> Double { min(30, 0.5 * pow(2, Double(attempt - 1))) }

    private func deliver(_ d: BridgeDelivery, _ hook: Bridge.Webhook, _ lane: Lane) {
        let signature = WebhookClient.signature(d.body, secret: hook.secret)
        for n in 1...hook.maxAttempts {
            let headers = [
                ("Content-Type", "application/json"), ("User-Agent", "pushmock-bridge"), ("Idempotency-Key", d.key),
                ("X-Pushmock-Event", d.eventName), ("X-Pushmock-Attempt", String(n)), ("X-Pushmock-Signature", signature),
            ]
            let started = Clock.wallNow()
            let outcome = webhooks.post(hook.url, headers: headers, body: d.body, timeout: hook.timeoutSeconds)
            let ms = (Clock.wallNow() - started) / 1000
            var detail: String
            var ok = false
            switch outcome {
            case .status(let code):
                ok = (200...299).contains(code)
                detail = "HTTP \(code) (\(ms) ms)"
            case .failed(let why): detail = "\(why) (\(ms) ms)"
            }
            let last = ok || n == hook.maxAttempts
            if !last { detail += ", next in \(ChildProcess.formatSeconds(Self.backoff(after: n))) s" }
            if !ok && n == hook.maxAttempts { detail += "; gave up after \(n) attempts" }
            record(BridgeAttempt(delivery: d, number: n, succeeded: ok, final: last, detail: detail))
            if last || !pause(Self.backoff(after: n), lane) { return }
        }
    }

    private func runCommand(_ d: BridgeDelivery, _ c: Bridge.Command) {
        let r = ChildProcess.run(c.argv, environment: d.environment, input: d.body, timeout: c.timeoutSeconds)
        record(BridgeAttempt(delivery: d, number: 1, succeeded: r.succeeded, final: true, detail: r.summary))
    }

    /// `xcrun simctl push <udid> <bundle id> <file>` with the payload in a temporary file.
    private func inject(_ d: BridgeDelivery, udid: String, bundleID: String) {
        let file = NSTemporaryDirectory() + "pushmock-simctl-\(d.key).apns"
        guard FileManager.default.createFile(atPath: file, contents: Data(d.simulatorPayload ?? [])) else {
            record(BridgeAttempt(delivery: d, number: 1, succeeded: false, final: true, detail: "cannot write \(file)"))
            return
        }
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = ChildProcess.run(["xcrun", "simctl", "push", udid, bundleID, file], environment: [], input: [], timeout: 30)
        record(BridgeAttempt(delivery: d, number: 1, succeeded: r.succeeded, final: true, detail: r.summary))
    }
}
