internal import COpenSSL
import Foundation
import PushMockCore

/// RSA keys made ahead on a thread of their own: making one takes about 100 ms of a core,
/// which on the loop would stall every other client. `take` hands out a ready key or throws
/// `KeyNotReady`. The thread starts at the first `take` (a pushmock nobody asks for a service
/// account makes no key), then keeps `capacity` ready and sleeps otherwise, until `stop`
/// (before the process exits: OpenSSL's exit-time cleanup must not run under a key being made).
final class RSAKeyPool: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var ready: [(privatePEM: String, publicPEM: String)] = []
    private var stopping = false
    private var started = false
    private var running = false
    private let capacity: Int
    private let make: @Sendable () throws -> (privatePEM: String, publicPEM: String)

    init(capacity: Int = 1, make: @escaping @Sendable () throws -> (privatePEM: String, publicPEM: String)) {
        self.capacity = capacity
        self.make = make
    }

    func take() throws -> (privatePEM: String, publicPEM: String) {
        condition.lock()
        defer { condition.unlock() }
        if !started, !stopping {
            started = true
            running = true
            let thread = Thread { [self] in fill() }
            thread.name = "pushmock-rsa-keys"
            thread.start()
        }
        guard !ready.isEmpty else { throw KeyNotReady() }
        let key = ready.removeFirst()
        condition.broadcast()
        return key
    }

    /// Ends the thread once the key it is making, if any, is made (at most `seconds`).
    func stop(seconds: Double = 5) {
        let until = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        stopping = true
        condition.broadcast()
        while running, condition.wait(until: until) {}
        condition.unlock()
    }

    private func fill() {
        defer {
            // The thread's OpenSSL state goes with it, before the process exits.
            OPENSSL_thread_stop()
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        while true {
            condition.lock()
            while ready.count >= capacity, !stopping { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { return }
            guard let key = try? make() else {
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            condition.lock()
            ready.append(key)
            condition.broadcast()
            condition.unlock()
        }
    }
}
