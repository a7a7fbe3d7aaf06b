/// What the app on a fake device is doing (docs/reference/delivery-rules.md §F).
public enum AppState: String, Sendable, CaseIterable {
    case foreground, background
    /// Killed by the system: background pushes still launch it.
    case notRunning = "not_running"
    /// Force-quit (iOS) or force-stopped (Android) by the user: nothing launches it.
    case terminated

    static let spellings = Spellings<AppState>()
}

/// The user's notification permission for the app.
public enum NotificationPermission: String, Sendable, CaseIterable {
    case authorized, denied, provisional
    case notDetermined = "not_determined"

    static let spellings = Spellings<NotificationPermission>()
}

/// What an iOS app's `userNotificationCenter(_:willPresent:)` returns for foreground alerts.
public enum PresentationOption: String, Sendable, CaseIterable {
    case banner, list, sound, badge

    static let spellings = Spellings<PresentationOption>()
}

/// The settable state of a device, with the defaults of a freshly installed app that was
/// granted notifications and then sent to the background.
public struct DeviceState: Sendable, Equatable {
    /// The FCM SDK sample's `[.list, .banner, .sound]` (IOS-RECV).
    public var presentationOptions: [PresentationOption] = [.banner, .list, .sound]
    // The one-byte fields follow the list, so that they fill one word (a million devices).
    public var appState = AppState.background
    public var online = true
    public var notifications = NotificationPermission.authorized
    public var lowPowerMode = false
    public var autoInitEnabled = true

    public init() {}

    /// Whether the app can hold a registration token in this state. A web app's token is
    /// its push subscription, which exists only while notifications are allowed: Chrome
    /// unsubscribes an origin whose permission is revoked (docs/device-model.md, "Web").
    func hasPushSubscription(on platform: Platform) -> Bool {
        platform != .web || notifications == .authorized
    }
}
