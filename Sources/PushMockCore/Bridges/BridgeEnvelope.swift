/// What a bridge sends for one event (docs/bridges.md, "What is sent"): the log row, the
/// device, and exactly what the device received, rendered as its inbox shows it.
enum BridgeEnvelope {
    static func make(for e: Event, on device: Device, through bridge: Bridge) -> BridgeDelivery {
        let key = "\(bridge.id)-\(e.seq)"
        var w = JSONWriter(capacity: 1536)
        w.beginObject()
        w.member("delivery_id", key)
        w.member("bridge", bridge.id)
        w.key("event")
        RecordJSON.writeEvent(e, to: &w)
        w.key("device")
        w.raw(DeviceFields.json(device))
        if let id = e.messageID, let entry = device.entry(id)?.entry { w.member("shown", entry.shown.rawValue) }
        if let message = e.message, let id = e.messageID {
            w.key("received")
            w.beginObject()
            RecordJSON.writeRendering(message, id, device, to: &w)
            w.endObject()
        }
        w.endObject()
        var simulatorPayload: [UInt8]?
        var simulatorBundleID: String?
        if case .simulator(_, let bundleID) = bridge.target, let message = e.message, let id = e.messageID {
            simulatorBundleID = bundleID ?? device.app
            simulatorPayload = simulatorFile(message, id, device, bundleID: bundleID ?? device.app)
        }
        return BridgeDelivery(
            bridge: bridge, key: key, eventName: e.kind.rawValue, body: w.bytes,
            environment: environment(e, device, key: key, bridge: bridge), simulatorPayload: simulatorPayload,
            simulatorBundleID: simulatorBundleID,
            projectID: e.projectID, messageID: e.messageID, deviceID: device.id)
    }

    /// The APNs payload the iPhone got, with the `Simulator Target Bundle` key `simctl push`
    /// reads to pick the app.
    static func simulatorFile(_ message: Message, _ id: String, _ device: Device, bundleID: String) -> [UInt8] {
        let payload = APNsRendering.render(message: message, messageID: id, device: device).payload
        let object = (try? JSONParser.parse(Array(payload.utf8)))?.objectValue ?? JSONObject()
        var w = JSONWriter(capacity: payload.utf8.count + 64)
        w.beginObject()
        w.member("Simulator Target Bundle", bundleID)
        for entry in object.entries { w.member(JSONKey(entry.key), entry.value) }
        w.endObject()
        return w.bytes
    }

    /// A command's `PUSHMOCK_*` variables: the event's main fields, and the notification's
    /// title and body when it has them.
    static func environment(_ e: Event, _ device: Device, key: String, bridge: Bridge) -> [(name: String, value: String)] {
        var env: [(String, String)] = [
            ("PUSHMOCK_DELIVERY_ID", key), ("PUSHMOCK_BRIDGE", bridge.id), ("PUSHMOCK_EVENT", e.kind.rawValue),
            ("PUSHMOCK_PROJECT", e.projectID), ("PUSHMOCK_DEVICE_ID", device.id),
            ("PUSHMOCK_PLATFORM", device.platform.rawValue), ("PUSHMOCK_APP", device.app),
        ]
        if let id = e.messageID { env.append(("PUSHMOCK_MESSAGE_ID", id)) }
        if let reason = e.reason { env.append(("PUSHMOCK_REASON", reason)) }
        if let token = device.token { env.append(("PUSHMOCK_TOKEN", token)) }
        if let m = e.message {
            let (title, body) = titleAndBody(m)
            if let title { env.append(("PUSHMOCK_TITLE", title)) }
            if let body { env.append(("PUSHMOCK_BODY", body)) }
        }
        return env
    }

    /// The notification's title and body, from FCM's `notification` or APNs' `aps.alert`.
    static func titleAndBody(_ m: Message) -> (String?, String?) {
        if let n = m.content.notification { return (n["title"]?.stringValue, n["body"]?.stringValue) }
        guard m.format.direct, let payload = (try? JSONParser.parse(m.requestBytes))?.objectValue else { return (nil, nil) }
        let alert = payload["aps"]?["alert"]
        if let text = alert?.stringValue { return (nil, text) }
        return (alert?["title"]?.stringValue, alert?["body"]?.stringValue)
    }
}
