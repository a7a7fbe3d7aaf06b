/// The shared parts every send API works with: delivery, chaos, the quotas, message ids, the
/// clock, the log, and whether the durable log can be written. One value, so each API names
/// them once.
struct SendParts {
    /// Fans out, applies the device model, stores for offline devices.
    let delivery: Delivery
    /// Fails, drops or delays requests, and runs devices' scripts.
    let chaos: Chaos
    let quotas: Quotas
    /// Makes message and multicast ids.
    let ids: MessageIDs
    let clock: Clock
    /// Where rejections are logged.
    let log: EventLog
    /// True while the durable log cannot be written: sends are refused with the service's 503.
    let storeFailing: () -> Bool
}
