/// The reports `GET /emulator/v1/projects/{p}/reports` answers (`ControlEvents.reports`): the
/// Firebase console's Reports tab (sends, received, impressions, opens) and the Data API's
/// outcome categories with every drop reason, per day and in total; `format=csv` gives the
/// console's CSV export (one row a day) with a column per drop reason.
extension EventReaders {
    struct ReportFilter: Hashable {
        /// Days since 1970-01-01 (UTC), inclusive.
        var from: Int?
        var to: Int?
        var platform: Platform?
        var app: String?
        var label: String?

        func includes(_ e: Event) -> Bool {
            let day = e.time.dayNumber
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

    /// The report's rows: per day (YYYY-MM-DD) and in total. One pass over the log, on
    /// integers and object identities; the answer is kept until the log changes.
    func reportRows(_ project: Project, _ filter: ReportFilter) -> (days: [String: ReportRow], total: ReportRow) {
        let key = ReportCacheKey(projectID: project.id, filter: filter, lastSeq: log.lastSeq, count: log.count)
        if let cached = reportCache, cached.key == key { return (cached.days, cached.total) }
        var byDay: [Int: ReportRow] = [:]
        var total = ReportRow()
        // Console metrics cover notification messages and labeled data messages (G.1).
        let console: (Event) -> Bool = { e in
            guard let o = e.message?.options else { return false }
            return o.isNotification || o.analyticsLabel != nil
        }
        log.visit { e in
            guard e.projectNumber == project.number, e.device != nil, filter.includes(e), console(e) else { return true }
            var add = ReportRow()
            switch e.kind {
            // The console counts sends to Android and Apple apps only (G.1).
            case .messageAccepted where e.reason != "dry_run" && e.device?.platform != .web: add.sends = 1
            case .messageDelivered where e.device?.platform == .android: add.received = 1
            case .messageImpression: add.impressions = 1
            case .messageOpen where e.reason == "background": add.opens = 1
            default: return true
            }
            byDay[e.time.dayNumber, default: ReportRow()].merge(add)
            total.merge(add)
            return true
        }
        for pair in Outcomes(log: log, project: project, include: filter.includes).pairs {
            var add = ReportRow()
            add.outcomes[pair.category ?? .pending, default: 0] += 1
            if let r = pair.dropReason { add.dropped[r, default: 0] += 1 }
            byDay[pair.accepted.time.dayNumber, default: ReportRow()].merge(add)
            total.merge(add)
        }
        var days: [String: ReportRow] = [:]
        for (day, row) in byDay { days[(Timestamp(day) * 86_400 * 1_000_000).day] = row }
        reportCache = (key, days, total)
        return (days, total)
    }

    static func reportJSON(_ project: Project, _ days: [String: ReportRow], _ total: ReportRow) -> JSONWriter {
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
        return w
    }

    /// `Date,Sends,Received,Impressions,Opens` as the console exports them, then pushmock's
    /// outcome columns and one `Dropped: <reason>` column per reason seen.
    static func reportCSV(_ days: [String: ReportRow], _ total: ReportRow) -> String {
        let reasons = total.dropped.keys.sorted()
        let categories = Outcomes.Category.allCases
        var lines = [
            (["Date", "Sends", "Received", "Impressions", "Opens"] + categories.map { "Outcome: \($0.rawValue)" }
                + reasons.map { "Dropped: \($0)" }).joined(separator: ",")
        ]
        func line(_ label: String, _ r: ReportRow) -> String {
            ([label, String(r.sends), String(r.received), String(r.impressions), String(r.opens)]
                + categories.map { String(r.outcomes[$0] ?? 0) } + reasons.map { String(r.dropped[$0] ?? 0) }).joined(
                    separator: ",")
        }
        for day in days.keys.sorted() { lines.append(line(day, days[day]!)) }
        lines.append(line("Total", total))
        return lines.joined(separator: "\n") + "\n"
    }

    static func writeRow(_ row: ReportRow, to w: inout JSONWriter) {
        w.member("sends", row.sends)
        w.member("received", row.received)
        w.member("impressions", row.impressions)
        w.member("opens", row.opens)
        w.key("outcomes")
        w.beginObject()
        w.member("accepted", row.outcomes.values.reduce(0, +))
        for c in Outcomes.Category.allCases { w.member(JSONKey(c.rawValue), row.outcomes[c] ?? 0) }
        w.endObject()
        w.key("dropped_by_reason")
        w.beginObject()
        for (reason, n) in row.dropped.sorted(by: { $0.key < $1.key }) { w.member(JSONKey(reason), n) }
        w.endObject()
    }
}

extension EventReaders.ReportRow {
    mutating func merge(_ other: EventReaders.ReportRow) {
        sends += other.sends
        received += other.received
        impressions += other.impressions
        opens += other.opens
        for (k, v) in other.outcomes { outcomes[k, default: 0] += v }
        for (k, v) in other.dropped { dropped[k, default: 0] += v }
    }
}

/// What a cached report was computed from: the same question on an unchanged log.
struct ReportCacheKey: Equatable {
    let projectID: String
    let filter: EventReaders.ReportFilter
    let lastSeq: Int64
    let count: Int
}
