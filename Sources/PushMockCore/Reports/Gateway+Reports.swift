/// `GET /emulator/v1/projects/{p}/reports?from=&to=&platform=&app=&analytics_label=`: the
/// Firebase console's Reports tab (sends, received, impressions, opens) and the Data API's
/// outcome categories with every drop reason, per day and in total.
extension Gateway {
    struct ReportFilter {
        var from: String?
        var to: String?
        var platform: Platform?
        var app: String?
        var label: String?

        func includes(_ e: Event) -> Bool {
            let day = e.time.day
            if let from, day < from { return false }
            if let to, day > to { return false }
            if let platform, e.device?.platform != platform { return false }
            if let app, e.device?.app != app { return false }
            if let label, e.message?.options.analyticsLabel != label { return false }
            return true
        }
    }

    /// Per-day counters of one report row.
    struct ReportRow {
        var sends = 0, received = 0, impressions = 0, opens = 0
        var outcomes: [Outcomes.Category: Int] = [:]
        var dropped: [String: Int] = [:]
    }

    func reports(_ request: Request, _ params: [String: String]) throws(ControlError) -> Reply {
        let project = try controlProject(params)
        var f = ReportFilter()
        for (name, value) in [("from", request.queryValue("from")), ("to", request.queryValue("to"))] {
            guard let value else { continue }
            guard value.utf8.count == 10, value.split(separator: "-").count == 3 else {
                throw Control.invalid("'\(name)' must be a date, YYYY-MM-DD.")
            }
            if name == "from" { f.from = value } else { f.to = value }
        }
        if let p = request.queryValue("platform") {
            guard let platform = Platform(rawValue: p.lowercased()) else { throw Control.invalid("'platform' must be ios or android.") }
            f.platform = platform
        }
        f.app = request.queryValue("app")
        f.label = request.queryValue("analytics_label")
        let filter = f

        var days: [String: ReportRow] = [:]
        var total = ReportRow()
        // Console metrics cover notification messages and labeled data messages (G.1).
        let console: (Event) -> Bool = { e in
            guard let o = e.message?.options else { return false }
            return o.isNotification || o.analyticsLabel != nil
        }
        log.forEach { e in
            guard e.projectID == project.id, e.device != nil, filter.includes(e), console(e) else { return true }
            var add = ReportRow()
            switch e.kind {
            case .messageAccepted where e.reason != "dry_run": add.sends = 1
            case .messageDelivered where e.device?.platform == .android: add.received = 1
            case .messageImpression: add.impressions = 1
            case .messageOpen where e.reason == "background": add.opens = 1
            default: return true
            }
            days[e.time.day, default: ReportRow()].merge(add)
            total.merge(add)
            return true
        }
        for pair in Outcomes(log: log, projectID: project.id, include: filter.includes).pairs {
            var add = ReportRow()
            add.outcomes[pair.category ?? .pending, default: 0] += 1
            if let r = pair.dropReason { add.dropped[r, default: 0] += 1 }
            days[pair.accepted.time.day, default: ReportRow()].merge(add)
            total.merge(add)
        }

        var w = JSONWriter()
        w.beginObject()
        w.member("project", project.id)
        w.key("days")
        w.beginArray()
        for day in days.keys.sorted() {
            w.beginObject()
            w.member("date", day)
            Self.writeRow(days[day]!, to: &w)
            w.endObject()
        }
        w.endArray()
        w.key("total")
        w.beginObject()
        Self.writeRow(total, to: &w)
        w.endObject()
        w.endObject()
        return .response(.json(200, w))
    }

    static func writeRow(_ row: ReportRow, to w: inout JSONWriter) {
        w.member("sends", row.sends)
        w.member("received", row.received)
        w.member("impressions", row.impressions)
        w.member("opens", row.opens)
        w.key("outcomes")
        w.beginObject()
        w.member("accepted", row.outcomes.values.reduce(0, +))
        for c in Outcomes.Category.allCases { w.member(c.rawValue, row.outcomes[c] ?? 0) }
        w.endObject()
        w.key("dropped_by_reason")
        w.beginObject()
        for (reason, n) in row.dropped.sorted(by: { $0.key < $1.key }) { w.member(reason, n) }
        w.endObject()
    }
}

extension Gateway.ReportRow {
    mutating func merge(_ other: Gateway.ReportRow) {
        sends += other.sends
        received += other.received
        impressions += other.impressions
        opens += other.opens
        for (k, v) in other.outcomes { outcomes[k, default: 0] += v }
        for (k, v) in other.dropped { dropped[k, default: 0] += v }
    }
}
