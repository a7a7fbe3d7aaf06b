import Testing

@testable import PushMockCore

/// A topic's subscribers: in the order they subscribed, a removal filling its gap with the
/// last (which learns its new place), each device once.
@Suite("TopicMembers")
struct TopicMembersTests {
    @Test("subscribers keep their order, a removal moves the last into its place, a device is listed once")
    func members() throws {
        let h = try Harness { _ in }
        let ids = try (0..<4).map { _ in try h.device("android")["id"] as! String }
        for id in ids { try h.subscribe(id, "news") }
        try h.subscribe(ids[1], "news")
        let project = try #require(h.gateway.directory["demo-pushmock"])
        #expect(project.topics["news"]?.devices.map(\.id) == ids)
        let first = try #require(project.devices[ids[0]])
        project.topics.unsubscribe(first, from: "news")
        #expect(project.topics["news"]?.devices.map(\.id) == [ids[3], ids[1], ids[2]])
        project.topics.unsubscribe(try #require(project.devices[ids[2]]), from: "news")
        #expect(project.topics["news"]?.devices.map(\.id) == [ids[3], ids[1]])
        #expect(first.topics["news"] == nil && project.topics.subscriptionCount == 2)
        // Each device knows its place: the one moved into the gap leaves from there.
        project.topics.unsubscribe(try #require(project.devices[ids[3]]), from: "news")
        #expect(project.topics["news"]?.devices.map(\.id) == [ids[1]])
        project.topics.unsubscribe(try #require(project.devices[ids[1]]), from: "news")
        #expect(project.topics["news"] == nil && project.topics.count == 0)
    }

    @Test("a device's own topics: in the order subscribed, the first held apart from the rest, each knowing its place when moved")
    func memberships() throws {
        let h = try Harness { _ in }
        let ids = try (0..<3).map { _ in try h.device("android")["id"] as! String }
        for id in ids.dropFirst() { try h.subscribe(id, "b") }
        for topic in ["a", "b", "c"] { try h.subscribe(ids[0], topic) }
        let project = try #require(h.gateway.directory["demo-pushmock"])
        let device = try #require(project.devices[ids[0]])
        #expect(device.topics.keys == ["a", "b", "c"] && device.topics.count == 3)
        project.topics.unsubscribe(device, from: "a")
        #expect(device.topics.keys == ["b", "c"] && device.topics["a"] == nil && device.topics["b"] != nil)
        // "b", now the device's first topic, is where it is moved: it must leave from there.
        #expect(project.topics["b"]?.devices.map(\.id) == [ids[1], ids[2], ids[0]])
        project.topics.unsubscribe(try #require(project.devices[ids[1]]), from: "b")
        #expect(project.topics["b"]?.devices.map(\.id) == [ids[0], ids[2]])
        project.topics.unsubscribe(device, from: "b")
        #expect(project.topics["b"]?.devices.map(\.id) == [ids[2]] && device.topics.keys == ["c"])
        project.topics.unsubscribe(device, from: "c")
        #expect(device.topics.count == 0 && Array(device.topics).isEmpty)
    }

    @Test(
        "ids: a given dN moves the numbering past it, the largest N too (it overflowed and trapped), and generated ids never collide"
    )
    func numbering() throws {
        let h = try Harness { _ in }
        #expect(try h.device("android", extra: #","id":"d5""#)["id"] as? String == "d5")
        #expect(try h.device("android")["id"] as? String == "d6")
        #expect(try h.device("android", extra: #","id":"d9223372036854775807""#)["id"] as? String == "d9223372036854775807")
        #expect(try h.device("android", extra: #","id":"d007""#)["id"] as? String == "d007")
        #expect(try h.device("android")["id"] as? String == "d8")
        // Past Int: taken as given, the numbering stays.
        #expect(try h.device("android", extra: #","id":"d99999999999999999999""#)["id"] as? String == "d99999999999999999999")
        let created = h.call(
            "POST", "/emulator/v1/projects/demo-pushmock/devices:batchCreate",
            body: #"{"platform":"ios","app":"com.example.a","count":3}"#)
        #expect(created.bodyText == #"{"created":3,"first":"d9","last":"d11"}"#, "\(created.bodyText)")
        // An id held already is refused, whether below the numbering, at Int.max, past Int, or no `dN`.
        #expect(try h.device("android", extra: #","id":"phone""#)["id"] as? String == "phone")
        for id in ["d5", "d6", "d007", "d11", "d9223372036854775807", "d99999999999999999999", "phone"] {
            let again = h.call(
                "POST", "/emulator/v1/projects/demo-pushmock/devices",
                body: #"{"platform":"android","app":"com.example.app","id":"\#(id)"}"#)
            #expect(again.status == 409 && again.bodyText.contains("A device with id \(id) already exists."), "\(again.bodyText)")
        }
        #expect(try h.device("android")["id"] as? String == "d12")
    }
}
