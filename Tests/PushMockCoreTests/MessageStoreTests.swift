import Testing

@testable import PushMockCore

@Suite("The message store")
struct MessageStoreTests {
    func message(_ id: String, bytes: Int = 0) -> Message {
        Message(
            id: id, projectID: "p", projectNumber: 1, api: "apns", target: .token, options: PushContent().options,
            format: APNsProvider.format, requestBytes: Array(repeating: 0, count: bytes), requestHead: RequestHead(),
            receivedAt: 0,
            bulkID: nil,
            dryRun: false)
    }

    /// What a send of `body` bytes counts against the bound: its body and what it holds besides.
    func held(_ body: Int) -> Int { body + Message.heldBesides }

    @Test("bounded by bytes too: the oldest sends go until the new one's body fits, counted as evicted, and are let go")
    func byteBound() throws {
        let store = MessageStore(capacity: 100, maxBytes: 100_000)
        weak var first: Message?
        do {
            let a = message("a", bytes: 40_000)
            first = a
            store.add(a)
        }
        store.add(message("b", bytes: 40_000))
        #expect(store.count == 2 && store.bytes == 2 * held(40_000) && store.evicted == 0)
        store.add(message("c", bytes: 30_000)) // past the bound: a goes
        #expect(store.count == 2 && store.bytes == held(40_000) + held(30_000) && store.evicted == 1)
        #expect(store.message(id: "a") == nil && first == nil, "an evicted send is released")
        store.add(message("d", bytes: 200_000)) // larger than the bound: kept alone
        #expect(store.count == 1 && store.bytes == held(200_000) && store.newest(limit: 5).page.map(\.id) == ["d"])
        for i in 0..<5 { store.add(message("s\(i)", bytes: 10_000)) }
        #expect(store.newest(limit: 10).page.map(\.id) == ["s4", "s3", "s2", "s1", "s0"] && store.bytes == 5 * held(10_000))
        #expect(store.message(id: "s0") != nil && store.message(id: "d") == nil)
    }

    @Test("a full store and a full log, past how far ahead they ask for memory, keep the newest and let go of the rest")
    func fullRings() {
        let store = MessageStore(capacity: 50)
        let log = EventLog(capacity: 100)
        var released: [() -> Bool] = []
        for n in 0..<1_000 {
            let m = message("m\(n)")
            weak var kept = m
            released.append { kept == nil }
            store.add(m)
            // Four events a send, as a token send logs them; now and then one without its message.
            for k in 0..<4 {
                _ = log.append(
                    kind: .messageAccepted, time: Timestamp(n), projectID: "p", projectNumber: 1,
                    message: k == 3 && n % 7 == 0 ? nil : m)
            }
        }
        #expect(store.count == 50 && store.evicted == 950 && store.message(id: "m950") != nil && store.message(id: "m949") == nil)
        var seqs: [Int64] = []
        var ids: [String] = []
        log.visit { event in
            seqs.append(event.seq)
            if let m = event.message { ids.append(m.id) }
            return true
        }
        #expect(seqs == Array(3_901...4_000) && log.evicted == 3_900)
        #expect(Set(ids) == Set((975..<1_000).map { "m\($0)" }))
        // What neither holds is let go: every send but the store's newest 50 (the log's 25 among them).
        #expect(released[..<950].allSatisfy { $0() } && released[950...].allSatisfy { !$0() })
    }

    @Test(
        "ids find their sends until evicted, the newest of a repeated id wins, recipients are found and forgotten with their send"
    )
    func lookups() throws {
        let store = MessageStore(capacity: 3)
        let a = message("a")
        let b = message("b")
        let c = message("c")
        store.add(a)
        store.addRecipient("a:1", of: a)
        store.add(b)
        store.add(c)
        #expect(store.message(id: "a") === a)
        #expect(store.message(id: "a:1") === a)
        #expect(store.message(id: "c") === c)
        #expect(store.message(id: "d") == nil)
        let b2 = message("b")
        store.add(b2) // evicts a
        #expect(store.evicted == 1 && store.count == 3)
        #expect(store.message(id: "a") == nil)
        #expect(store.message(id: "a:1") == nil)
        #expect(store.message(id: "b") === b2)
        store.add(message("e")) // evicts the first b: the newer one is still found
        #expect(store.message(id: "b") === b2)
        #expect(store.newest(limit: 3).page.map(\.id) == ["e", "b", "c"])
        store.removeAll()
        #expect(store.count == 0 && store.message(id: "e") == nil)
    }

    @Test("an evicted FCM send lets go of its request body (its events still render its content); an APNs payload stays")
    func evictedLetGo() throws {
        let h = try Harness { $0.maxMessageBytes = 40_000 }
        let token = try h.device("android")["token"] as! String
        let pad = String(repeating: "x", count: 30_000)
        weak var first: Message?
        h.push(token, #""notification":{"title":"first"},"pad":"\#(pad)""#)
        first = h.project.messages.newest(limit: 1).page.first
        h.push(token, #""notification":{"title":"second"},"pad":"\#(pad)""#)
        let kept = try #require(first, "the log and the inbox still hold the first send")
        #expect(
            h.project.messages.count == 1 && kept.requestBytes.isEmpty
                && kept.content.notification?["title"]?.stringValue == "first")
        let inbox = try h.inbox("d1")
        #expect(inbox.count == 2, "both render: \(inbox)")
    }

    @Test("the stores of all projects share one bound: the store holding most gives up its oldest sends first")
    func sharedBudget() {
        let budget = MessageBudget(limit: 10_000)
        let a = MessageStore(capacity: 100, maxBytes: 8_000, budget: budget)
        for i in 0..<10 { a.add(message("a\(i)", bytes: 1_000)) }
        #expect(a.bytes <= 8_000 && budget.used == a.bytes)
        var b: MessageStore? = MessageStore(capacity: 100, maxBytes: 8_000, budget: budget)
        for i in 0..<6 { b!.add(message("b\(i)", bytes: 1_000)) }
        #expect(budget.used == a.bytes + b!.bytes && budget.used <= 10_000)
        #expect(b!.bytes >= 5_000 && a.message(id: "a9") != nil && a.message(id: "a2") == nil, "a gave up its oldest")
        b = nil
        #expect(budget.used == a.bytes, "a store that goes takes its bytes off the budget")
        a.removeAll()
        #expect(budget.used == 0)
    }

    @Test("the id hash tells apart ids of every length, and is the same for equal ids")
    func idHashes() throws {
        var seen: [UInt64: String] = [:]
        for length in 0...40 {
            for variant in ["a", "b"] {
                let id = String(repeating: "x", count: length) + variant
                #expect(MessageKey.fold(id) == MessageKey.fold(String(id)))
                #expect(seen.updateValue(id, forKey: MessageKey.fold(id)) == nil, "\(id)")
            }
        }
    }

    @Test("a removed send leaves a hole the ring passes: counts, bytes and eviction stay right")
    func removeLeavesHole() {
        let store = MessageStore(capacity: 3)
        let sends = (0..<3).map { message("r\($0)", bytes: 10) }
        for m in sends { store.add(m) }
        store.remove(sends[1])
        #expect(store.count == 2 && store.bytes == 2 * held(10) && store.message(id: "r1") == nil)
        #expect(store.newest(limit: 10).page.map(\.id) == ["r2", "r0"])
        // The ring is still full (the hole holds a slot): the next two adds pass r0 and the hole.
        store.add(message("r3", bytes: 10))
        store.add(message("r4", bytes: 10))
        #expect(store.newest(limit: 10).page.map(\.id) == ["r4", "r3", "r2"])
        #expect(store.count == 3 && store.evicted == 1 && store.bytes == 3 * held(10))
    }
}
