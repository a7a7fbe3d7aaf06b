/// Fan-out and delivery: what becomes of an accepted message on each device. In this
/// version every device is online with its app in the background, so a message is delivered
/// to the device and, when it carries a notification, displayed.
extension Gateway {
    /// Logs acceptance for one device and what the device did with the message.
    func deliver(_ message: Message, messageID: String, to device: Device, project: Project) {
        let now = clock.now()
        log.append(kind: .messageAccepted, time: now, projectID: project.id, projectNumber: project.number,
                   message: message, messageID: messageID, device: device)
        let displayed = message.options.isNotification
        device.receive(InboxEntry(message: message, messageID: messageID, receivedAt: now, displayed: displayed))
        log.append(kind: .messageDelivered, time: now, projectID: project.id, projectNumber: project.number,
                   message: message, messageID: messageID, device: device)
        if displayed {
            log.append(kind: .messageDisplayed, time: now, projectID: project.id, projectNumber: project.number,
                       message: message, messageID: messageID, device: device)
        }
        message.accepted += 1
    }

    /// Why a device that is registered cannot take this message, if it cannot.
    func deviceError(_ device: Device, _ options: PushOptions, project: Project) -> LegacyError? {
        if let restricted = options.restrictedPackageName, device.platform == .android, restricted != device.app {
            return .invalidPackageName
        }
        if device.platform == .ios {
            let app = project.app(.ios, device.app)
            guard let env = device.apnsEnvironment, app?.apnsCredentials.contains(env) == true else {
                return .invalidAPNsCredential
            }
        }
        return nil
    }

    /// Sends to every device subscribed to `topic`, or matching `condition`; devices that
    /// cannot take the message get an error event each. Returns how many received it.
    @discardableResult
    func fanOut(_ message: Message, messageID: String, project: Project, devices: some Sequence<Device>) -> Int {
        var delivered = 0
        for device in devices {
            if let error = deviceError(device, message.options, project: project) {
                logRejection(error, project: project, message: message, messageID: messageID, device: device)
                continue
            }
            deliver(message, messageID: messageID, to: device, project: project)
            delivered += 1
        }
        return delivered
    }

    func logRejection(_ error: LegacyError, project: Project, message: Message? = nil, messageID: String? = nil,
                      device: Device? = nil, token: String? = nil, type: MessageType? = nil) {
        log.append(kind: error.event, time: clock.now(), projectID: project.id, projectNumber: project.number,
                   message: message, messageID: messageID, messageType: type, device: device, token: token,
                   reason: error.reason)
        message?.failed += 1
    }

    /// The devices a condition reaches: subscribers of its topics, or every device of the
    /// project when the condition holds for a device with no topics (e.g. `!('a' in topics)`).
    func devices(matching condition: Condition, in project: Project) -> [Device] {
        if condition.matches({ _ in false }) {
            return project.deviceOrder.filter { d in condition.matches { d.topics[$0] != nil } }
        }
        var seen: [String: Device] = [:]
        for topic in Set(condition.topics) {
            for (id, d) in project.topics[topic] ?? [:] where seen[id] == nil && condition.matches({ d.topics[$0] != nil }) {
                seen[id] = d
            }
        }
        return Array(seen.values)
    }
}
