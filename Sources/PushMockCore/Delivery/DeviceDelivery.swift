/// What delivery keeps for one device: the messages the service stores while it is offline
/// (or dozing, or throttled), the background push iOS holds back, and the allowances the
/// device model counts. Stored on the device (`Device.delivery`) for memory's sake; only
/// `Delivery` and the `DeviceModel` change it.
struct DeviceDelivery {
    /// Messages the service holds while the device is offline, oldest first.
    var pending: [Pending] = []
    /// iOS: the newest background push the system is holding back (budget exhausted).
    var held: Pending? {
        get { heldBox?.pending }
        set { heldBox = newValue.map(HeldPush.init) }
    }
    /// Boxed: a push is rarely held, and a million idle devices would each carry its 40 bytes.
    private var heldBox: HeldPush?
    /// iOS: when recent background pushes were handed to the app, for the hourly budget.
    var backgroundDeliveries: [Timestamp] = []
    /// Android: collapsible messages the app may receive now (FCM's burst of 20, refilled one
    /// every 3 minutes), and when it was last refilled (`DeviceModel.refillCollapsibleAllowance`).
    var collapsibleAllowance = DeviceModel.collapsibleBurst
    var collapsibleRefilled: Timestamp = 0

    /// Nothing is stored or held.
    var isEmpty: Bool { pending.isEmpty && held == nil }
}

/// A held push, boxed (`DeviceDelivery.held`).
private final class HeldPush {
    let pending: Pending
    init(_ pending: Pending) { self.pending = pending }
}
