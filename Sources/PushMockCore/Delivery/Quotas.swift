/// FCM's quotas (docs/reference/fcm-v1.md §B.9): messages per minute per project, and per
/// Android device 240 a minute and 5,000 an hour. Over quota, a send is refused with
/// `OverQuota`, which each API answers its own way (HTTP v1: 429 QUOTA_EXCEEDED with
/// `Retry-After`). The counters live on the project and the device; this applies the rules.
final class Quotas {
    private let configuration: Configuration
    private let clock: Clock

    init(configuration: Configuration, clock: Clock) {
        self.configuration = configuration
        self.clock = clock
    }

    func consumeQuota(_ project: Project) throws(OverQuota) {
        let now = clock.now()
        if now - project.quotaWindowStart >= 60_000_000 {
            project.quotaWindowStart = now
            project.quotaUsed = 0
        }
        guard project.quotaUsed < configuration.quotaPerMinute else {
            throw OverQuota(scope: .project, retryAfter: project.quotaWindowStart + 60_000_000 - now)
        }
        project.quotaUsed += 1
    }

    func consumeDeviceRate(_ device: Device) throws(OverQuota) {
        if let wait = takeDeviceRate(device) { throw OverQuota(scope: .device, retryAfter: wait) }
    }

    /// Counts one message for the device; when it is over its limit, how long until it is not.
    /// FCM limits Android devices; `anyPlatform` applies the same limit to an iOS device
    /// pushed through the APNs provider API (TooManyRequests).
    func takeDeviceRate(_ device: Device, anyPlatform: Bool = false) -> Timestamp? {
        guard device.platform == .android || anyPlatform, configuration.deviceRateLimit > 0 else { return nil }
        let now = clock.now()
        if now - device.rate.minuteStart >= 60_000_000 {
            device.rate.minuteStart = now
            device.rate.minute = 0
        }
        if now - device.rate.hourStart >= 3_600_000_000 {
            device.rate.hourStart = now
            device.rate.hour = 0
        }
        if device.rate.minute >= configuration.deviceRateLimit { return device.rate.minuteStart + 60_000_000 - now }
        if device.rate.hour >= 5000 { return device.rate.hourStart + 3_600_000_000 - now }
        device.rate.minute += 1
        device.rate.hour += 1
        return nil
    }
}

/// A send over a quota: the project's messages per minute, or the device's rate, and how
/// long (µs) until it has room again.
struct OverQuota: Error {
    enum Scope { case project, device }
    let scope: Scope
    let retryAfter: Timestamp
}

/// A device's send counters for the per-device rate limits.
struct DeviceRate {
    var minuteStart: Timestamp = 0
    var minute = 0
    var hourStart: Timestamp = 0
    var hour = 0
}
