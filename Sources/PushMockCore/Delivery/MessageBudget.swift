/// The bytes every project's kept sends may hold together (`--max-total-message-mb`): each
/// project's `MessageStore` is bounded by `--max-message-mb` too, and when a send would take
/// the whole instance past this bound, the project holding the most gives up its oldest sends
/// first, so many projects cannot add up to more than one bound (docs/hardening.md).
/// Loop thread only.
final class MessageBudget {
    let limit: Int
    private(set) var used = 0
    /// Every store that holds sends; a project's store leaves when the project goes.
    private var stores: [ObjectIdentifier: Unowned] = [:]

    private struct Unowned {
        unowned let store: MessageStore
    }

    init(limit: Int) { self.limit = max(1, limit) }

    func join(_ store: MessageStore) { stores[ObjectIdentifier(store)] = Unowned(store: store) }

    func leave(_ store: MessageStore) {
        stores[ObjectIdentifier(store)] = nil
        used -= store.bytes
    }

    func took(_ n: Int) { used += n }
    func gave(_ n: Int) { used -= n }

    /// Evicts the oldest sends of the stores holding most until `size` more fits in `store`;
    /// between two holding as much, another's first.
    func makeRoom(for size: Int, in store: MessageStore) {
        func holdsLess(_ a: MessageStore, _ b: MessageStore) -> Bool {
            a.bytes != b.bytes ? a.bytes < b.bytes : a === store
        }
        while used + size > limit, let fullest = stores.values.map(\.store).max(by: holdsLess), fullest.bytes > 0 {
            fullest.evictOldestSend()
        }
    }
}
