/// What finally became of each (message, device) pair, read back from the log: the unit
/// FCM's Data API reports in. A pair's outcome is the last outcome event logged for it.
struct Outcomes {
    /// The Data API's mutually exclusive categories (docs/reference/reporting.md §G.3), plus drops it does
    /// not name.
    enum Category: String, CaseIterable {
        case delivered, pending, collapsed
        case droppedTooManyPendingMessages, droppedAppForceStopped, droppedDeviceInactive, droppedTtlExpired
        /// Dropped for a reason the Data API has no category for (e.g. notifications off).
        case droppedOther
    }

    struct Pair {
        let accepted: Event
        var category: Category?
        var dropReason: String?
        /// Delivered after waiting (stored offline, held) rather than at once.
        var delayed = false
        /// Why it last waited (`device_offline`, `device_doze`, ...).
        var storedReason: String?
    }

    private(set) var pairs: [Pair] = []

    /// A (message, device) pair by identity: hashing two pointers, not two strings.
    private struct Key: Hashable {
        let message: ObjectIdentifier
        let device: ObjectIdentifier
    }

    /// Folds the matching events of the log, oldest first, into pairs.
    init(log: EventLog, project: Project, include: (Event) -> Bool) {
        var index: [Key: Int] = [:]
        log.visit { e in
            guard e.projectNumber == project.number, let device = e.device, let message = e.message, include(e) else {
                return true
            }
            let key = Key(message: ObjectIdentifier(message), device: ObjectIdentifier(device))
            if e.kind == .messageAccepted {
                if e.reason != "dry_run" {
                    index[key] = pairs.count
                    pairs.append(Pair(accepted: e))
                }
                return true
            }
            guard let i = index[key] else { return true }
            switch e.kind {
            case .messageDelivered:
                pairs[i].category = .delivered
                pairs[i].delayed = (e.delay ?? 0) > 0
            case .messageStored:
                pairs[i].category = .pending
                pairs[i].storedReason = e.reason
            case .messageCollapsed: pairs[i].category = .collapsed
            case .messageExpired: pairs[i].category = .droppedTtlExpired
            case .messageDropped:
                let reason = e.reason.flatMap(DropReason.init)
                pairs[i].category = reason?.dataAPICategory.flatMap(Category.init) ?? .droppedOther
                pairs[i].dropReason = e.reason
            default: break
            }
            return true
        }
    }
}
