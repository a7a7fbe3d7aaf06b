/// What FCM and APNs keep for a device that is offline, and what happens to it later:
/// delivered in order when the device is back, collapsed, dropped, or expired
/// (docs/reference/delivery-rules.md §F).
extension Delivery {
    /// The offline rules: TTL 0 is now-or-never; APNs keeps the newest message per app;
    /// FCM keeps up to 100, collapsing by key (at most 4 keys), and drops all beyond 100.
    func store(_ item: Pending, for device: Device, project: Project, because reason: String) {
        if item.expires <= item.message.receivedAt {
            record(.messageDropped, item, device, project, reason: DropReason.ttlExpired.rawValue)
            return
        }
        switch device.platform {
        case .ios:
            for old in device.delivery.pending { record(.messageCollapsed, old, device, project, reason: "replaced_by_newer") }
            device.delivery.pending = [item]
        case .android, .web:
            if let key = DeviceModel.collapseKey(item.message, on: device) {
                if let i = device.delivery.pending.firstIndex(where: {
                    DeviceModel.collapseKey($0.message, on: device) == key
                }) {
                    record(.messageCollapsed, device.delivery.pending[i], device, project, reason: "replaced_by_newer")
                    device.delivery.pending.remove(at: i)
                }
                var keys: [String] = []
                for p in device.delivery.pending {
                    if let k = DeviceModel.collapseKey(p.message, on: device), !keys.contains(k) { keys.append(k) }
                }
                if keys.count >= DeviceModel.maxCollapseKeys,
                    let i = device.delivery.pending.firstIndex(where: {
                        DeviceModel.collapseKey($0.message, on: device) == keys[0]
                    })
                {
                    record(
                        .messageDropped, device.delivery.pending[i], device, project,
                        reason: DropReason.tooManyCollapseKeys.rawValue)
                    device.delivery.pending.remove(at: i)
                }
            }
            if device.delivery.pending.count >= DeviceModel.maxPendingAndroid {
                for old in device.delivery.pending + [item] {
                    record(.messageDropped, old, device, project, reason: DropReason.tooManyPending.rawValue)
                }
                device.delivery.pending.removeAll()
                return
            }
            device.delivery.pending.append(item)
        }
        waiting[Self.waitingKey(device)] = device
        record(.messageStored, item, device, project, reason: reason)
    }

    static func waitingKey(_ device: Device) -> String { device.projectID + "/" + device.id }

    /// The device is back online or awake: what was stored arrives, oldest first, unless it
    /// expired or must still wait (normal priority while the device dozes).
    func flush(_ device: Device, project: Project) {
        let now = clock.now()
        let items = device.delivery.pending
        device.delivery.pending.removeAll()
        for item in items {
            if item.expires <= now {
                record(.messageExpired, item, device, project, reason: "ttl")
            } else if mustWait(item, device) != nil {
                device.delivery.pending.append(item)
            } else {
                arrive(item, at: device, project: project, now: now)
            }
        }
        forgetIfIdle(device)
    }

    /// The user launched the app: a held background push is handed over at once (docs/reference/delivery-rules.md §F.1).
    func releaseHeld(_ device: Device, project: Project) {
        guard let item = device.delivery.held else { return }
        device.delivery.held = nil
        let now = clock.now()
        if item.expires <= now {
            record(.messageExpired, item, device, project, reason: "ttl")
        } else {
            device.receive(InboxEntry(message: item.message, messageID: item.messageID, receivedAt: now, shown: .app))
            record(.messageDelivered, item, device, project, reason: "app_launched", delay: now - item.since)
        }
        forgetIfIdle(device)
    }

    /// Force-quit discards the held background push (docs/reference/delivery-rules.md §F.1).
    func discardHeld(_ device: Device, project: Project, reason: DropReason) {
        guard let item = device.delivery.held else { return }
        device.delivery.held = nil
        record(.messageDropped, item, device, project, reason: reason.rawValue)
        forgetIfIdle(device)
    }

    /// Uninstalling (or, on the Web, losing the push subscription) drops whatever was
    /// waiting for the device.
    func dropWaiting(_ device: Device, project: Project, reason: DropReason = .uninstalled) {
        for item in device.delivery.pending + (device.delivery.held.map { [$0] } ?? []) {
            record(.messageDropped, item, device, project, reason: reason.rawValue)
        }
        device.delivery.pending.removeAll()
        device.delivery.held = nil
        forgetIfIdle(device)
    }

    /// A project is reset: its devices no longer wait for anything.
    func forgetWaiting(in project: Project) {
        for d in project.devices.inOrder { waiting[Self.waitingKey(d)] = nil }
    }

    private func forgetIfIdle(_ device: Device) {
        if device.delivery.pending.isEmpty && device.delivery.held == nil { waiting[Self.waitingKey(device)] = nil }
    }

    /// Expires stored and held messages whose TTL or `apns-expiration` has passed, and applies
    /// `--max-age` to the log. The server calls it every second; so does moving the manual clock.
    func expireDue() {
        let now = clock.now()
        // Retention (`--max-age`) runs on the same once-a-second beat.
        if let age = configuration.maxAgeSeconds { log.evict(before: now - Timestamp(age) * 1_000_000) }
        for device in Array(waiting.values) {
            guard let project = directory[device.projectID], project.devices[device.id] === device else {
                waiting[Self.waitingKey(device)] = nil
                continue
            }
            let (due, kept) = (
                device.delivery.pending.filter { $0.expires <= now }, device.delivery.pending.filter { $0.expires > now }
            )
            device.delivery.pending = kept
            for item in due { record(.messageExpired, item, device, project, reason: "ttl") }
            if let held = device.delivery.held, held.expires <= now {
                device.delivery.held = nil
                record(.messageExpired, held, device, project, reason: "ttl")
            }
            // Throttled collapsible messages arrive as the allowance refills.
            if device.state.online, !device.delivery.pending.isEmpty { flush(device, project: project) }
            forgetIfIdle(device)
        }
    }
}

extension Device {
    /// How long the device has not been connected (0 while online).
    func idle(at now: Timestamp) -> Timestamp { state.online ? 0 : now - lastSeen }
}
