/// Counts changes to the state a restart must keep (projects, apps, keys, service accounts,
/// devices, subscriptions). The component that makes such a change records it here; the
/// server saves a snapshot when the version moved. Loop thread only.
public final class StateChanges {
    public private(set) var version = 0

    public init() {}

    func record() { version &+= 1 }
}
