internal import CLibevent

/// The one libevent loop. Its thread owns every libevent object and all gateway state.
final class EventBase {
    /// Freed in deinit. Every object that wraps a libevent object made on this base holds
    /// the base, so none outlives it.
    let pointer: OpaquePointer

    init() throws(ServerError) {
        guard let base = event_base_new() else { throw ServerError.libevent("event_base_new") }
        pointer = base
    }

    deinit { event_base_free(pointer) }

    /// Runs until `exit(after:)` or until nothing is left to wait for.
    func run() throws(ServerError) {
        if event_base_dispatch(pointer) == -1 { throw ServerError.libevent("event_base_dispatch") }
    }

    func exit(after seconds: Double) {
        var tv = timeval(seconds: seconds)
        event_base_loopexit(pointer, &tv)
    }
}

/// A libevent event with a non-capturing callback: the owner passes itself as the argument.
/// Freed in deinit; it holds its base, so the base cannot be freed first.
final class LoopEvent {
    let pointer: OpaquePointer
    private let base: EventBase
    /// Added and not yet fired (a persistent event stays armed until removed).
    private(set) var isArmed = false
    private let persistent: Bool

    init(
        base: EventBase, fd: Int32, what: Int16, callback: event_callback_fn,
        argument: UnsafeMutableRawPointer
    ) throws(ServerError) {
        guard let ev = event_new(base.pointer, fd, what, callback, argument) else { throw ServerError.libevent("event_new") }
        pointer = ev
        self.base = base
        persistent = what & Int16(EV_PERSIST) != 0
    }

    deinit { event_free(pointer) }

    /// Arms the event, with a timeout when `seconds` is given. The timeout counts from now,
    /// not from when the loop last woke (libevent's cached time, stale after long work).
    /// `event_add` fails only for an event libevent cannot watch (a bad descriptor); it then
    /// stays unarmed, and the owner's deadline ends it.
    func add(seconds: Double? = nil) {
        guard var tv = seconds.map(timeval.init(seconds:)) else {
            isArmed = event_add(pointer, nil) == 0
            return
        }
        event_base_update_cache_time(event_get_base(pointer))
        isArmed = event_add(pointer, &tv) == 0
    }

    /// Makes the event's callback run in this turn of the loop, as if `what` happened.
    func activate(_ what: Int32 = Int32(EV_TIMEOUT)) { event_active(pointer, what, 0) }

    func remove() {
        event_del(pointer)
        isArmed = false
    }

    /// The callback is running: a one-shot event is no longer armed.
    func fired() { if !persistent { isArmed = false } }
}

extension timeval {
    init(seconds: Double) {
        let whole = seconds.rounded(.down)
        self.init(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
    }
}

/// Runs `body` on the object a libevent callback's argument points to (its owner passed it
/// unretained), kept alive until `body` returns: a callback may drop the owner's last
/// reference on the way (a connection that closes leaves its listener's table).
func withCallbackTarget<T: AnyObject>(_ arg: UnsafeMutableRawPointer?, _ body: (T) -> Void) {
    guard let arg else { return }
    let target = Unmanaged<T>.fromOpaque(arg).takeUnretainedValue()
    withExtendedLifetime(target) { body(target) }
}
