/// The shared parts every send API works with: delivery, chaos, the quotas, message ids, the
/// clock, the log, and whether the durable log can be written. One value, so each API names
/// them once.
struct SendParts {
    let delivery: Delivery
    let chaos: Chaos
    let quotas: Quotas
    let ids: MessageIDs
    /// True while the durable log cannot be written: sends are refused with the service's 503.
    let storeFailing: () -> Bool

    /// Delivery's clock and log, which every send reads and appends to.
    var clock: Clock { delivery.clock }
    var log: EventLog { delivery.log }
}
