/// GCM check-in (`POST /checkin`), where a client gets the android id and security token it
/// registers and logs in to MCS with (docs/reference/fcm-clients.md §3): Chrome's GCM driver and
/// firebase-messaging post an `AndroidCheckinRequest` protobuf to `android.clients.google.com`,
/// the iOS SDK posts JSON to `device-provisioning.googleapis.com`. A client that names its
/// credentials gets them back (a pair pushmock does not know is adopted, so a client that kept
/// them across pushmock's restart goes on with them); a known id with another token is refused.
/// Loop thread only.
struct CheckinAPI {
    let book: ClientBook
    let mcs: MCSServer
    let changes: StateChanges
    let clock: Clock
    let random: RandomSource

    /// What a check-in said: its credentials (0 for none), whether it is a browser's, its version.
    struct Said {
        var id: UInt64 = 0
        var securityToken: UInt64 = 0
        var browser = false
        var version: String?
    }

    func checkin(_ request: Request) -> Reply {
        let json = request.hasMediaType("application/json")
        let said: Said?
        if json {
            said = (try? JSONParser.parse(request.body))?.objectValue.flatMap(Self.readJSON)
        } else {
            said = try? Self.readProtobuf(request.body)
        }
        guard let said else { return .response(GoogleFrontEnd.framingError(400)) }
        guard let checkin = record(said, userAgent: request.header("user-agent")) else {
            return .response(
                GoogleFrontEnd.page(
                    401, "Unauthorized", "Your client does not have permission to get URL <code>/checkin</code> from this server."
                ))
        }
        if checkin.browser { mcs.device(of: checkin) }
        let now = clock.now() / 1000
        if json {
            var w = JSONWriter(capacity: 256)
            w.object { w in
                w.member("stats_ok", true)
                w.member("time_msec", Int(now))
                w.member("android_id", Int(checkin.androidID))
                w.member("security_token", Int(checkin.securityToken))
                w.member("version_info", Self.versionInfo)
                w.member("digest", "")
                w.array("setting") { _ in }
            }
            return .response(.json(200, w))
        }
        var p = ProtoWriter()
        p.bool(1, true)
        p.varint(3, UInt64(max(0, now)))
        p.fixed64(7, checkin.androidID)
        p.fixed64(8, checkin.securityToken)
        p.string(11, Self.versionInfo)
        return .response(Response(status: 200, headers: [("Content-Type", "application/x-protobuf")], body: p.bytes))
    }

    static let versionInfo = "pushmock"

    /// The check-in this request makes or renews; nil for a known id with the wrong token.
    private func record(_ said: Said, userAgent: String?) -> ClientBook.Checkin? {
        let now = clock.now()
        if said.id != 0, said.securityToken != 0, said.id < 1 << 63, said.securityToken < 1 << 63 {
            if let known = book.checkin(said.id) {
                guard known.securityToken == said.securityToken else { return nil }
                var renewed = known
                renewed.checkedInAt = now
                renewed.version = said.version ?? known.version
                renewed.userAgent = userAgent ?? known.userAgent
                book.record(renewed)
                changes.project(mcs.projectID)
                return renewed
            }
            if !book.isFull {
                return add(said.id, said.securityToken, said, userAgent: userAgent, now: now)
            }
        }
        // A new one: both non-zero and below 2^63, as clients put them back in int64 fields.
        var id = random.next() >> 1
        while id == 0 || book.checkin(id) != nil { id = random.next() >> 1 }
        return add(id, max(1, random.next() >> 1), said, userAgent: userAgent, now: now)
    }

    private func add(_ id: UInt64, _ token: UInt64, _ said: Said, userAgent: String?, now: Timestamp) -> ClientBook.Checkin {
        let c = ClientBook.Checkin(
            androidID: id, securityToken: token, browser: said.browser, version: said.version, userAgent: userAgent,
            checkedInAt: now, deviceID: nil)
        book.record(c)
        changes.project(mcs.projectID)
        return c
    }

    /// An `AndroidCheckinRequest`: `id` (2), `security_token` (13, fixed64), `checkin` (4)
    /// with its `type` (12; 3 is a browser) and `chrome_build` (13) `chrome_version` (2).
    static func readProtobuf(_ body: [UInt8]) throws(ProtoReader.Malformed) -> Said {
        var said = Said()
        for f in try ProtoReader.fields(body[...]) {
            switch f.number {
            case 2: said.id = f.integer ?? 0
            case 13: said.securityToken = f.integer ?? 0
            case 4:
                guard let inner = f.bytes else { throw ProtoReader.Malformed() }
                for g in try ProtoReader.fields(inner) {
                    if g.number == 12, g.integer == 3 { said.browser = true }
                    if g.number == 13, let build = g.bytes {
                        said.browser = true
                        for h in try ProtoReader.fields(build) where h.number == 2 { said.version = h.string }
                    }
                }
            default: break
            }
        }
        return said
    }

    /// The iOS SDK's JSON: `id`, `security_token` (numbers) and `checkin.iosbuild`.
    static func readJSON(_ obj: JSONObject) -> Said? {
        var said = Said()
        if let id = obj["id"] {
            guard let n = id.numberValue.flatMap({ UInt64($0.text) }) else { return nil }
            said.id = n
        }
        if let token = obj["security_token"] {
            guard let n = token.numberValue.flatMap({ UInt64($0.text) }) else { return nil }
            said.securityToken = n
        }
        let build = obj["checkin"]?["iosbuild"]
        said.version = [build?["model"]?.stringValue, build?["os_version"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        return said
    }
}
