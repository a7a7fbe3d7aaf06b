/// What Google's client-side APIs keep (docs/fcm-clients.md): GCM check-ins (an android id and
/// its security token), GCM registrations (`register3`'s token and the form that made it), and
/// Firebase installations (a FID, its refresh token and auth token, in its project). The devices
/// these clients become live in their projects like any other; this book holds what only the
/// registration protocols use. Loop thread only.
final class ClientBook {
    /// A GCM check-in: the credentials a client logs in to MCS and registers with.
    struct Checkin {
        let androidID: UInt64
        let securityToken: UInt64
        /// A browser's check-in (Chrome's GCM driver, firebase-messaging: type 3), or an iOS
        /// app's (the Firebase SDK: type 2).
        let browser: Bool
        /// What it said it is: its Chrome version, or its iOS build.
        var version: String?
        var userAgent: String?
        var checkedInAt: Timestamp
        /// The browser's device (a real client of the default project), once made.
        var deviceID: String?
    }

    /// A `register3` registration: a push subscription on FCM's endpoint, delivered over MCS.
    struct GCMRegistration {
        let token: String
        let androidID: UInt64
        /// The form's `app` (the stanza's `category`), `X-subtype` (the app id, or empty) and
        /// `sender` (a project number, or an application server key): each data message carries
        /// them back.
        let app: String
        let subtype: String
        let sender: String
        /// Chrome's Instance ID form (`appid`, `scope=GCM`): its answers and coding differ.
        let instanceID: String?
    }

    /// A Firebase installation.
    struct Installation {
        let projectID: String
        let fid: String
        let appID: String
        let refreshToken: String
        var authToken: String
        var authExpires: Timestamp
        var sdkVersion: String
    }

    private(set) var checkins: [UInt64: Checkin] = [:]
    private(set) var registrations: [String: GCMRegistration] = [:]
    /// The tokens of each check-in's registrations, so a browser's are found without a scan.
    private var tokensByCheckin: [UInt64: Set<String>] = [:]
    /// Installations by project and FID, and the keys of each by its refresh and auth token.
    private var installations: [String: Installation] = [:]
    private var byRefreshToken: [String: String] = [:]
    private var byAuthToken: [String: String] = [:]
    /// At most this many check-ins and registrations each: a flood of new clients holds no
    /// unbounded memory (beyond it, the oldest browser check-in without a device goes first).
    static let limit = 100_000

    // MARK: Check-ins

    func checkin(_ id: UInt64) -> Checkin? { checkins[id] }

    func record(_ c: Checkin) { checkins[c.androidID] = c }

    var isFull: Bool { checkins.count >= Self.limit }

    func setDevice(_ deviceID: String, of androidID: UInt64) { checkins[androidID]?.deviceID = deviceID }

    /// `AidLogin <android id>:<security token>` as a known check-in, or nil.
    func checkin(aidLogin header: String?) -> Checkin? {
        guard let header, header.hasPrefix("AidLogin ") else { return nil }
        let parts = header.dropFirst(9).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let id = UInt64(parts[0]), let token = UInt64(parts[1]), let c = checkins[id],
            c.securityToken == token
        else { return nil }
        return c
    }

    // MARK: GCM registrations

    func registration(_ token: String) -> GCMRegistration? { registrations[token] }

    func add(_ r: GCMRegistration) {
        registrations[r.token] = r
        tokensByCheckin[r.androidID, default: []].insert(r.token)
    }

    func removeRegistration(_ token: String) {
        guard let r = registrations.removeValue(forKey: token) else { return }
        tokensByCheckin[r.androidID]?.remove(token)
    }

    /// The registrations of one check-in (a browser's subscriptions).
    func registrations(of androidID: UInt64) -> [GCMRegistration] {
        (tokensByCheckin[androidID] ?? []).sorted().compactMap { registrations[$0] }
    }

    // MARK: Installations

    private static func key(_ projectID: String, _ fid: String) -> String { projectID + "/" + fid }

    func installation(_ projectID: String, _ fid: String) -> Installation? { installations[Self.key(projectID, fid)] }

    func add(_ i: Installation) {
        let key = Self.key(i.projectID, i.fid)
        if let old = installations[key] { forget(old) }
        installations[key] = i
        byRefreshToken[i.refreshToken] = key
        byAuthToken[i.authToken] = key
    }

    func remove(_ i: Installation) {
        forget(i)
        installations[Self.key(i.projectID, i.fid)] = nil
    }

    private func forget(_ i: Installation) {
        byRefreshToken[i.refreshToken] = nil
        byAuthToken[i.authToken] = nil
    }

    /// A new auth token for an installation (its old one stops working).
    func renew(_ i: Installation, token: String, expires: Timestamp) -> Installation {
        var renewed = i
        renewed.authToken = token
        renewed.authExpires = expires
        add(renewed)
        return renewed
    }

    func installation(refreshToken: String) -> Installation? { byRefreshToken[refreshToken].flatMap { installations[$0] } }

    func installation(authToken: String) -> Installation? { byAuthToken[authToken].flatMap { installations[$0] } }

    func installations(of projectID: String) -> [Installation] {
        installations.values.filter { $0.projectID == projectID }.sorted { $0.fid < $1.fid }
    }

    var installationCount: Int { installations.count }
}
