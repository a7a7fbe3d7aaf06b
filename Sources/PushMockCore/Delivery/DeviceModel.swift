/// What a phone does with a push that reaches it, by platform, app state and permission
/// (docs/reference/delivery-rules.md §F, the seeds' foreground/background rules). Pure: the caller applies it.
/// Every rule is listed with its source in docs/device-model.md.
enum DeviceModel {
    enum Fate: Equatable {
        /// The device got it; how it showed (or that only the app saw it).
        case shown(InboxEntry.Shown)
        /// iOS held a background push back (budget exhausted); a newer one replaces it.
        case held
        case dropped(DropReason)
    }

    static func arrival(_ message: Message, on device: Device, budgetLeft: Bool) -> Fate {
        let s = device.state
        let options = message.options
        switch (device.platform, message.isNotification(on: device.platform)) {
        case (.ios, true):
            switch s.notifications {
            case .denied: return .dropped(.notificationsDisabled)
            case .notDetermined: return .dropped(.notificationsNotAuthorized)
            case .authorized, .provisional: break
            }
            if s.appState == .foreground {
                let visible = s.presentationOptions.contains(.banner) || s.presentationOptions.contains(.list)
                return .shown(visible ? .presented : .app)
            }
            return .shown(s.notifications == .provisional ? .quietly : .displayed)
        case (.ios, false):
            if s.appState == .foreground { return .shown(.app) }
            guard options.contentAvailable else { return .dropped(.notContentAvailable) }
            if s.appState == .terminated { return .dropped(.appTerminated) }
            if s.lowPowerMode { return .dropped(.lowPowerMode) }
            return budgetLeft ? .shown(.app) : .held
        case (.android, true):
            if s.appState == .terminated { return .dropped(.appForceStopped) }
            if s.appState == .foreground { return .shown(.app) }
            if s.notifications == .denied || s.notifications == .notDetermined { return .dropped(.notificationsDisabled) }
            return .shown(.displayed)
        case (.android, false):
            return s.appState == .terminated ? .dropped(.appForceStopped) : .shown(.app)
        case (.web, _) where message.format.direct:
            // Web Push: the browser decrypts the data and wakes the service worker
            // (`ServiceWorker`); a body that does not decrypt is dropped.
            if message.content.payloadError != nil { return .dropped(.undecryptable) }
            if s.notifications != .authorized { return .dropped(.notificationsDisabled) }
            let handling = ServiceWorker.handle(message.content.payload ?? [])
            if handling.byFirebase, s.appState == .foreground { return .shown(.page) }
            return .shown(handling.notification != nil ? .displayed : .app)
        case (.web, let isNotification):
            // The FCM service worker: a visible page gets every message in `onMessage` and
            // nothing is shown; otherwise it shows the notification (if any) and hands the
            // message to `onBackgroundMessage`. A browser without permission has no
            // subscription, so nothing reaches it.
            if s.notifications != .authorized { return .dropped(.notificationsDisabled) }
            if s.appState == .foreground { return .shown(.page) }
            return .shown(isNotification ? .displayed : .app)
        }
    }

    /// Android keeps this many messages per app instance while it is offline (§F.2).
    static let maxPendingAndroid = 100
    /// ... and at most this many distinct collapse keys.
    static let maxCollapseKeys = 4
    /// Android devices not connected for longer than this drop new messages (§F.2).
    static let inactiveAfter: Timestamp = 28 * 86_400 * 1_000_000
    /// Tokens idle longer than this are expired (§F.2).
    static let tokenExpiresAfter: Timestamp = 270 * 86_400 * 1_000_000

    /// FCM throttles collapsible messages per app on each Android device: a burst of 20,
    /// refilled one every 3 minutes (§B.9). A throttled message waits, collapsing as stored
    /// messages do, and arrives as the allowance refills (the Data API's
    /// `delayedMessageThrottled`).
    static let collapsibleBurst = 20
    static let collapsibleRefill: Timestamp = 180 * 1_000_000

    /// Refills the device's allowance of collapsible messages for the time passed; returns
    /// how many its app may receive at `now`.
    static func refillCollapsibleAllowance(_ device: Device, at now: Timestamp) -> Int {
        if device.delivery.collapsibleRefilled == 0 { device.delivery.collapsibleRefilled = now }
        let refills = Int((now - device.delivery.collapsibleRefilled) / collapsibleRefill)
        if refills > 0 {
            device.delivery.collapsibleAllowance = min(collapsibleBurst, device.delivery.collapsibleAllowance + refills)
            device.delivery.collapsibleRefilled =
                device.delivery.collapsibleAllowance == collapsibleBurst
                ? now : device.delivery.collapsibleRefilled + Timestamp(refills) * collapsibleRefill
        }
        return device.delivery.collapsibleAllowance
    }

    /// The collapse key a stored message replaces others by, or nil when it is not
    /// collapsible. On Android notification messages always collapse (by package name);
    /// data messages only with a collapse key. A browser's push service collapses only by
    /// the Web Push `Topic` (the legacy `collapse_key`). iOS keeps one message per app in
    /// any case.
    static func collapseKey(_ message: Message, on device: Device) -> String? {
        if device.platform == .web { return message.web.collapseKey }
        return message.options.isNotification ? device.app : message.options.collapseKey
    }
}

/// Why a message did not reach the user (`reason` of `MESSAGE_DROPPED`).
enum DropReason: String {
    case notificationsDisabled = "notifications_disabled"
    case notificationsNotAuthorized = "notifications_not_authorized"
    case notContentAvailable = "not_content_available"
    case appTerminated = "app_terminated"
    case appForceStopped = "app_force_stopped"
    case lowPowerMode = "low_power_mode"
    case backgroundBudgetExhausted = "background_budget_exhausted"
    case tooManyPending = "too_many_pending"
    case tooManyCollapseKeys = "too_many_collapse_keys"
    case ttlExpired = "ttl_expired"
    case deviceInactive = "device_inactive"
    case uninstalled = "app_uninstalled"
    /// Web: notification permission was withdrawn, so the browser dropped the subscription.
    case subscriptionRevoked = "push_subscription_revoked"
    /// Web Push: the body did not decrypt with the subscription's keys (RFC 8291); the
    /// message view says why.
    case undecryptable = "decryption_failed"

    /// The FCM Data API category it counts towards, if any.
    var dataAPICategory: String? {
        switch self {
        case .tooManyPending: "droppedTooManyPendingMessages"
        case .appForceStopped, .appTerminated: "droppedAppForceStopped"
        case .deviceInactive: "droppedDeviceInactive"
        case .ttlExpired: "droppedTtlExpired"
        default: nil
        }
    }
}
