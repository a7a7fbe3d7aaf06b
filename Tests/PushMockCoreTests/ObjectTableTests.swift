import Testing

@testable import PushMockCore

/// The devices' index table: lookups ask the object, removals go by identity, tombstones are
/// reused, growth keeps every object findable.
@Suite("ObjectTable")
struct ObjectTableTests {
    final class Named {
        var name: String
        init(_ name: String) { self.name = name }
    }

    @Test(
        "finds by the object's own key, replaces, removes by identity, and grows from 8 slots to 100,000 objects; one sized ahead fills to the size"
    )
    func table() {
        var t = ObjectTable<Named>()
        let objects = (0..<100_000).map { Named("key-\($0)") }
        for o in objects { t.insert(o.name, o) { $0.name == o.name } }
        #expect(t.count == 100_000)
        #expect(objects.allSatisfy { o in t.find(o.name) { $0.name == o.name } === o })
        #expect(t.find("key-100000") { $0.name == "key-100000" } == nil)
        // Another object with the same key takes its place; the same object again changes nothing.
        let other = Named("key-7")
        t.insert("key-7", other) { $0.name == "key-7" }
        t.insert("key-7", other) { $0.name == "key-7" }
        #expect(t.count == 100_000 && t.find("key-7") { $0.name == "key-7" } === other)
        // An object renamed is still removed under its old key (by identity), and only it.
        objects[8].name = "renamed"
        let wrong = t.remove("key-8", objects[9])
        let right = t.remove("key-8", objects[8])
        #expect(!wrong && right)
        #expect(t.count == 99_999 && t.find("key-8") { _ in true } == nil)
        // Removing and adding again many times reuses the slots.
        for round in 0..<5 {
            let removed = objects[1000..<2000].filter { t.remove($0.name, $0) }.count
            #expect(removed == 1000, "round \(round)")
            for o in objects[1000..<2000] { t.insert(o.name, o) { $0.name == o.name } }
        }
        #expect(t.count == 99_999 && objects[1000..<2000].allSatisfy { o in t.find(o.name) { $0.name == o.name } === o })
        var reserved = ObjectTable<Named>()
        reserved.reserveCapacity(1000)
        reserved.insert("a", objects[0]) { _ in false }
        #expect(reserved.count == 1 && reserved.find("a") { _ in true } === objects[0])
        // Filled to what it was sized for (3/4 of its slots, probes wrapping at the end).
        for o in objects[1..<1000] { reserved.insert(o.name, o) { $0.name == o.name } }
        #expect(reserved.count == 1000 && objects[1..<1000].allSatisfy { o in reserved.find(o.name) { $0.name == o.name } === o })
    }

    @Test("identifiers made in one allocation draw what the plain ones draw: a FID, its token")
    func identifiers() {
        let a = RandomSource(seed: 7)
        let b = RandomSource(seed: 7)
        #expect(a.base64URL(150) == String(b.base64URL(after: "x", 0, then: "y:", 150).dropFirst(3)))
        let both = b.base64URL(after: "x", 21, then: "y:", 150)
        #expect(both == "x" + a.base64URL(21) + "y:" + a.base64URL(150))
        // Ten symbols a word, six bits each from the lowest, the rest of the word unused.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for count in [0, 1, 9, 10, 11, 21, 134, 150] {
            let words = RandomSource(seed: UInt64(count))
            var expected: [UInt8] = []
            while expected.count < count {
                var word = words.next()
                for _ in 0..<min(10, count - expected.count) {
                    expected.append(alphabet[Int(word & 63)])
                    word >>= 6
                }
            }
            #expect(RandomSource(seed: UInt64(count)).base64URL(count) == String(decoding: expected, as: UTF8.self))
        }
        let fid = Identifiers.fid(a)
        let token = Identifiers.registrationToken(fid: fid, a)
        #expect(fid.utf8.count == 22 && "cdef".contains(fid.first!))
        #expect(token.hasPrefix(fid + ":APA91b") && token.utf8.count == 163 && Identifiers.looksLikeRegistrationToken(token))
        // A batch's token and its FID in one string: the same draws.
        #expect(Identifiers.registrationTokenWithNewFID(b) == token)
    }
}
