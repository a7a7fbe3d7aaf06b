import Testing

@testable import PushMockCore

/// The table of an HTTP/2 session's open streams, checked against a dictionary through the
/// orders a client opens and closes streams in, and through ids that all want one slot.
@Suite("StreamTable")
struct StreamTableTests {
    /// Applies `steps` (positive: open that id, negative: close it) to a table and to a
    /// dictionary, and checks after each that they hold the same.
    static func agree(_ steps: [Int32]) {
        var table = StreamTable<Int32>()
        var model: [Int32: Int32] = [:]
        for step in steps {
            if step > 0 {
                if model[step] != nil { _ = table.remove(step) }
                table.insert(step * 10, id: step)
                model[step] = step * 10
            } else {
                #expect(table.remove(-step) == model.removeValue(forKey: -step))
            }
            #expect(table.count == model.count)
        }
        for id in Set(steps.map(abs)) { #expect(table[id] == model[id], "id \(id)") }
        #expect(table.all.sorted() == model.values.sorted())
        #expect(table[99_999] == nil)
    }

    @Test("a client's window: odd ids opened in order, closed in another order, 100 at a time; one left open while others pass")
    func window() {
        var steps: [Int32] = []
        var rng = SystemRandomNumberGenerator()
        var open: [Int32] = []
        for n in 0..<5_000 {
            let id = Int32(2 * n + 1)
            steps.append(id)
            open.append(id)
            if open.count == 100 {
                open.shuffle(using: &rng)
                steps += open.prefix(60).map { -$0 }
                open.removeFirst(60)
            }
        }
        steps += open.map { -$0 }
        Self.agree(steps)
        // One stream stays open (a long poll) while 10,000 come and go after it.
        var passing: [Int32] = [1]
        for n in Int32(1)...10_000 { passing += [2 * n + 1, -(2 * n + 1)] }
        Self.agree(passing)
    }

    @Test("ids that want one slot (a multiple of twice the size apart), removed in and out of order, through growth")
    func collisions() {
        // A slot is half the id modulo the size (16, then 32, 64, ...): these want slot 7 or 15.
        let clash: [Int32] = [15, 47, 79, 111, 31, 63, 95, 127]
        Self.agree(clash + [-47, -15, 143, -111, 175, -31, 47, 15, -127, -63])
        // Enough to grow while runs wrap around the end.
        let many = (0..<40).map { Int32(31 + 64 * $0) }
        Self.agree(many + many.enumerated().filter { $0.offset % 3 == 0 }.map { -$0.element } + [5, 7, 9])
    }

    @Test("random ids opened, closed and opened again, against a dictionary")
    func random() {
        var rng = SystemRandomNumberGenerator()
        var steps: [Int32] = []
        var open: Set<Int32> = []
        for _ in 0..<20_000 {
            if !open.isEmpty, Int.random(in: 0..<3, using: &rng) == 0 {
                let id = open.randomElement(using: &rng)!
                open.remove(id)
                steps.append(-id)
            } else {
                let id = Int32.random(in: 1...4_000, using: &rng)
                open.insert(id)
                steps.append(id)
            }
        }
        Self.agree(steps)
        var table = StreamTable<String>()
        table.insert("a", id: 3)
        table.insert("b", id: 5)
        #expect(table.count == 2 && table[3] == "a" && table.contains { $0 == "b" } && !table.contains { $0 == "c" })
        #expect(table.remove(3) == "a" && table.remove(3) == nil && table.remove(5) == "b" && table.isEmpty)
    }
}
