/// FCM's Data API, `GET /v1beta1/projects/{p}/androidApps/{app}/deliveryData` (docs/reference/reporting.md
/// §G.3): one entry per day and analytics label for an Android app, in the API's own shape, so
/// a dashboard built against the real API works against pushmock. Its bearer token needs the
/// `cloud-platform` scope. Loop thread only.
struct DeliveryDataAPI: GatewayModule {
    static let maxPageSize = 10_000

    let log: EventLog
    let directory: ProjectDirectory
    let credentials: Credentials

    func addRoutes(to routes: inout Routes) {
        routes.group("/v1beta1/projects/{project}", GoogleFrontEndStyle.rest) { r in
            r.add("GET", "/androidApps/{app}/deliveryData", deliveryData)
        }
    }

    func deliveryData(_ request: Request, _ params: PathParameters) -> Reply {
        let scope = (AccessToken.cloudPlatformScope, "fcmdata.googleapis.com")
        if let failure = credentials.bearerFailure(request, projectID: params[.project] ?? "", scope: scope) {
            return .response(failure)
        }
        return Control.run { () throws(ControlError) in try answer(request, params) }
    }

    private func answer(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        let appParam = params[.app] ?? ""
        guard
            let app = project.apps.values.first(where: {
                $0.platform == .android && ($0.name == appParam || $0.appID(projectNumber: project.number) == appParam)
            })
        else {
            throw Control.notFound("Requested entity was not found.")
        }
        var pageSize = 1000
        if let s = request.queryValue("pageSize") {
            guard let n = Int(s), n >= 0 else { throw Control.invalid("Invalid value for pageSize: \(s)") }
            pageSize = n == 0 ? 1000 : min(n, Self.maxPageSize)
        }
        var offset = 0
        if let t = request.queryValue("pageToken"), !t.isEmpty {
            guard let n = Int(t), n >= 0 else { throw Control.invalid("Invalid page token.") }
            offset = n
        }

        struct Key: Hashable {
            let day: String
            let label: String
        }
        struct Counts {
            var accepted = 0, notifications = 0, noDelay = 0, offline = 0, doze = 0, throttled = 0
            var outcomes: [Outcomes.Category: Int] = [:]
        }
        var groups: [Key: Counts] = [:]
        let pairs = Outcomes(log: log, project: project) { e in
            e.device?.platform == .android && e.device?.app == app.name
        }.pairs
        for pair in pairs {
            let key = Key(day: pair.accepted.time.day, label: pair.accepted.message?.options.analyticsLabel ?? "")
            var c = groups[key] ?? Counts()
            c.accepted += 1
            if pair.accepted.message?.options.isNotification == true { c.notifications += 1 }
            c.outcomes[pair.category ?? .pending, default: 0] += 1
            if pair.category == .delivered {
                if !pair.delayed {
                    c.noDelay += 1
                } else if pair.storedReason == "device_doze" {
                    c.doze += 1
                } else if pair.storedReason == "message_throttled" {
                    c.throttled += 1
                } else {
                    c.offline += 1
                }
            }
            groups[key] = c
        }
        let keys = groups.keys.sorted { ($0.day, $0.label) < ($1.day, $1.label) }
        let page = keys.dropFirst(offset).prefix(pageSize)
        let appID = app.appID(projectNumber: project.number)

        var w = JSONWriter()
        w.beginObject()
        w.key("androidDeliveryData")
        w.beginArray()
        for key in page {
            let c = groups[key]!
            let percent = { (n: Int) -> String in Self.percentText(n, of: c.accepted) }
            w.beginObject()
            w.member("appId", appID)
            let parts = key.day.split(separator: "-").compactMap { Int($0) }
            w.key("date")
            w.beginObject()
            w.member("year", parts[0])
            w.member("month", parts[1])
            w.member("day", parts[2])
            w.endObject()
            if !key.label.isEmpty { w.member("analyticsLabel", key.label) }
            w.key("data")
            w.beginObject()
            w.member("countMessagesAccepted", String(c.accepted))
            w.member("countNotificationsAccepted", String(c.notifications))
            w.key("messageOutcomePercents")
            w.beginObject()
            for category in Outcomes.Category.allCases where category != .droppedOther {
                if let n = c.outcomes[category], n > 0 {
                    w.key(JSONKey(category.rawValue))
                    w.raw(percent(n))
                }
            }
            w.endObject()
            w.key("deliveryPerformancePercents")
            w.beginObject()
            let delivered = c.noDelay + c.offline + c.doze + c.throttled
            let performance: [(JSONKey, Int)] = [
                ("deliveredNoDelay", c.noDelay), ("delayedDeviceOffline", c.offline), ("delayedDeviceDoze", c.doze),
                ("delayedMessageThrottled", c.throttled),
            ]
            for (name, n) in performance where n > 0 {
                w.key(name)
                w.raw(Self.percentText(n, of: delivered))
            }
            w.endObject()
            w.endObject()
            w.endObject()
        }
        w.endArray()
        if offset + page.count < keys.count { w.member("nextPageToken", String(offset + page.count)) }
        w.endObject()
        return .response(.json(200, w))
    }

    /// A percentage as the API writes it: a JSON number, whole when it is whole.
    static func percentText(_ n: Int, of total: Int) -> String {
        guard total > 0 else { return "0" }
        let p = Double(n) * 100 / Double(total)
        return p == p.rounded() ? String(Int(p)) : String(p)
    }
}
