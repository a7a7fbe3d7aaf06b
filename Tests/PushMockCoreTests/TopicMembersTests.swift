import Testing

@testable import PushMockCore

/// A topic's subscribers: in the order they subscribed, a removal filling its gap with the
/// last, each device once.
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
        #expect(project.topics["news"]?.contains(first) == false && project.topics.subscriptionCount == 2)
    }
}
