import Foundation

/// Everything pushmock is told at start, from flags and `PUSHMOCK_*` variables (flags win).
/// Zero flags give a useful server: the `demo-pushmock` project with the default dev key.
public struct Configuration: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = Configuration.defaultPort
    public var project = "demo-pushmock"
    public var serverKeys = [Configuration.defaultServerKey]
    public var strictApps = false
    public var acceptAnyKey = false
    public var acceptAnyToken = false
    /// One line per request on standard output (`--access-log`).
    public var accessLog = false
    public var clock = Clock.Mode.system
    /// iOS background pushes handed to an app per hour before the system holds them.
    public var backgroundBudget = 3
    /// HTTP v1 messages per minute per project (FCM's default quota).
    public var quotaPerMinute = 600_000
    /// Messages per minute one Android device takes (FCM: 240, and 5,000 an hour); 0 = off,
    /// and with it the throttling of collapsible messages (20, then one per 3 minutes).
    public var deviceRateLimit = 240
    public var maxEvents = 1_000_000
    /// Seconds an event is kept (`--max-age`); nil keeps events until `maxEvents` pushes them out.
    public var maxAgeSeconds: Int?
    public var maxMessages = 100_000
    /// Request-body bytes of the sends kept, per project (`--max-message-mb`).
    public var maxMessageBytes = 256 << 20
    public var maxConnections = 4096
    public var maxBodyBytes = 1 << 20
    /// How long an HTTP/1.1 connection has to deliver a whole request, counted from its
    /// opening or its previous answer (mid-request and idle between keep-alive requests
    /// alike), and how long its client may leave an answer unread.
    public var timeoutSeconds = 30
    /// `--tls-port` as given (nil: not given; `.some(nil)`: off).
    public var tlsPortGiven: Int??
    /// The TLS port (HTTP/2 and HTTP/1.1, APNs); nil when off: as given, else a free one when
    /// the HTTP port is picked so (`--port 0`: a second instance must not collide on 4443),
    /// else 4443.
    public var tlsPort: Int? {
        if let given = tlsPortGiven { return given }
        return port == 0 ? 0 : Self.defaultTLSPort
    }
    /// `--mcs-port` as given (nil: not given; `.some(nil)`: off).
    public var mcsPortGiven: Int??
    /// MCS's TLS port, where real GCM clients keep their connection (nil: none): as given, else
    /// off with TLS off, a free one when the TLS port is picked so (`--tls-port 0`, as tests
    /// start it), else 5228.
    public var mcsPort: Int? {
        if let given = mcsPortGiven { return given }
        guard let tls = tlsPort else { return nil }
        return tls == 0 ? 0 : Self.defaultMCSPort
    }
    /// A certificate chain and key to serve instead of the one pushmock issues.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Names and addresses the issued server certificate carries besides the built-in ones.
    public var tlsSANs: [String] = []
    /// More host names the control API and dashboard answer to (`--allow-host`; `*` for any).
    public var allowedHosts: [String] = []
    /// A bearer token the control API requires (`--control-token`); none by default.
    public var controlToken: String?

    /// The names every issued server certificate carries: loopback and the hosts the official
    /// SDKs and APNs clients hard-code. The control API and dashboard answer to them too.
    public static let certificateNames = [
        "localhost", "127.0.0.1", "::1", "fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com",
        "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        // The browsers' push services (docs/web-push.md).
        "updates.push.services.mozilla.com", "push.services.mozilla.com", "web.push.apple.com",
        // Google's client side (docs/fcm-clients.md): check-in, registrations, MCS, and the
        // FCM host Chromium's pre-release builds put in push endpoints.
        "android.clients.google.com", "firebaseinstallations.googleapis.com", "fcmregistrations.googleapis.com",
        "device-provisioning.googleapis.com", "fcmtoken.googleapis.com", "mtalk.google.com", "jmt17.google.com",
    ]
    /// Where the local CA and the server certificate live (`Configuration.defaultCertDirectory`).
    public var certDirectory = "pushmock-certs"
    /// Where the durable state lives (`--data-dir`); nil keeps everything in memory.
    public var dataDirectory: String?
    /// `--sync always`: answer a send only once its events are on disk.
    public var syncAlways = false
    /// `--legacy-api shutdown`: the legacy send and device-group endpoints answer as Google's
    /// shut-down service does (404), and each call is logged.
    public var legacyAPIShutDown = false
    /// `--webhook`: every project's deliveries are also POSTed here (docs/bridges.md).
    public var webhookURL: String?
    /// `--webhook-secret`: the key of its signatures; random (and printed) when not given.
    public var webhookSecret: String?
    /// `--max-devices`: devices the control API registers, in all projects together.
    public var maxDevices = 2_000_000
    /// `--max-projects`: projects that can exist, those created on first use included.
    public var maxProjects = 100
    /// `--max-total-message-mb`: what the kept sends of all projects hold together, in bytes.
    public var maxTotalMessageBytes = 1024 << 20
    /// `--allow-command`: the programs a command bridge may run (`*`: any); none by default,
    /// so whoever reaches the control API cannot run programs (docs/exposure.md).
    public var allowedCommands: [String] = []
    /// Disk space kept back under `--data-dir` (`--disk-reserve-mb`): when the disk fills, it is
    /// freed so what was acknowledged can still be written, and new sends are refused.
    public var diskReserveBytes = 16 << 20
    /// A JSON fixture loaded at start (`--seed`).
    public var seedFile: String?
    /// The APNs environment of requests to a host that is not one of Apple's.
    public var apnsEnvironment = APNsEnvironment.sandbox
    /// `--web-push-hosts real`: Web devices' endpoints are on the push services' own hosts
    /// (for setups that map them to pushmock); by default on pushmock's own address.
    public var webPushRealHosts = false
    /// Every project's starting failure injection (`--chaos`).
    public var chaos = ChaosSettings()
    /// Seeds the chaos generator, so a run's injected failures repeat.
    public var chaosSeed: UInt64?

    /// `pushmock --version`: the release, raised as the project's issues land.
    public static let version = "0.35.0"

    public static let defaultPort = 4010
    public static let defaultTLSPort = 4443
    /// `mtalk.google.com`'s port (docs/reference/fcm-clients.md §5.1).
    public static let defaultMCSPort = 5228
    public static let defaultServerKey = "pushmock-dev-server-key"

    public init() {}
}

public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    public let description: String
}

extension Configuration {
    /// One option: its flag, its variable, whether it takes a value, and how it applies.
    struct Option: Sendable {
        let flag: String
        let help: String
        let takesValue: Bool
        let apply: @Sendable (inout Configuration, String) throws(ConfigurationError) -> Void
        var variable: String { "PUSHMOCK_" + flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_") }
        /// What `--help` writes for the value: what kind of value the flag takes.
        var valueName: String {
            if flag == "--port" || flag.hasSuffix("-port") { return "PORT" }
            if help.hasPrefix("seconds") { return "SECONDS" }
            if flag.hasSuffix("-dir") || flag.hasSuffix("-cert") || flag.hasSuffix("-key") || flag == "--seed" { return "PATH" }
            return Self.valueNames[flag] ?? "VALUE"
        }

        static let valueNames: [String: String] = [
            "--host": "ADDRESS", "--project": "ID", "--clock": "system|manual", "--background-budget": "N",
            "--quota-per-minute": "N", "--device-rate-limit": "N", "--max-events": "N", "--max-age": "DURATION",
            "--max-messages": "N", "--max-message-mb": "MIB", "--max-total-message-mb": "MIB", "--max-devices": "N",
            "--max-projects": "N", "--max-connections": "N", "--tls-san": "NAME", "--allow-host": "NAME",
            "--control-token": "TOKEN", "--sync": "MODE", "--disk-reserve-mb": "MIB", "--legacy-api": "MODE",
            "--webhook": "URL", "--webhook-secret": "SECRET", "--allow-command": "PATH", "--apns-environment": "ENV",
            "--web-push-hosts": "MODE", "--chaos": "SPEC", "--chaos-seed": "N", "--server-key": "KEY", "--data": "PATH",
        ]

        /// A whole number in `range` (with `megabytes`, a count of MiB, kept in bytes).
        static func int(
            _ flag: String, _ help: String, _ range: ClosedRange<Int>, _ field: WritableKeyPath<Configuration, Int> & Sendable,
            megabytes: Bool = false
        ) -> Option {
            Option(flag: flag, help: help, takesValue: true) { c, v throws(ConfigurationError) in
                c[keyPath: field] = try Configuration.int(v, flag, range) << (megabytes ? 20 : 0)
            }
        }

        /// A switch: the flag alone, or `true`/`false` in its variable.
        static func bool(_ flag: String, _ help: String, _ field: WritableKeyPath<Configuration, Bool> & Sendable) -> Option {
            Option(flag: flag, help: help, takesValue: false) { c, v throws(ConfigurationError) in
                c[keyPath: field] = try Configuration.bool(v, flag)
            }
        }

        /// A path, which may not be empty, given to `set`.
        static func path(_ flag: String, _ help: String, _ set: @escaping @Sendable (inout Configuration, String) -> Void)
            -> Option
        {
            Option(flag: flag, help: help, takesValue: true) { c, v throws(ConfigurationError) in
                guard !v.isEmpty else { throw ConfigurationError(description: "\(flag): empty path") }
                set(&c, v)
            }
        }
    }

    static let options: [Option] = [
        Option(flag: "--host", help: "address to listen on (default 127.0.0.1; 0.0.0.0 in containers)", takesValue: true) {
            c, v throws(ConfigurationError) in c.host = v
        },
        .int("--port", "HTTP port; 0 picks a free one (default \(defaultPort))", 0...65535, \.port),
        Option(flag: "--project", help: "the project id served at start (default demo-pushmock)", takesValue: true) {
            c, v throws(ConfigurationError) in
            guard isProjectID(v) else {
                throw ConfigurationError(description: "--project: '\(v)' is not a project id ([a-z0-9-], 1-63 characters)")
            }
            c.project = v
        },
        Option(
            flag: "--server-key",
            help: "a legacy server key of the project; repeatable, comma-separated in the variable (default \(defaultServerKey))",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            let keys = v.split(separator: ",").map(String.init).filter { !$0.isEmpty }
            guard !keys.isEmpty else { throw ConfigurationError(description: "--server-key: empty key") }
            c.serverKeys = (c.serverKeys == [defaultServerKey] ? [] : c.serverKeys) + keys
        },
        .bool("--strict-apps", "devices may only register for apps declared through the control API", \.strictApps),
        .bool("--accept-any-key", "accept any Authorization key on /fcm/send and /iid", \.acceptAnyKey),
        .bool("--accept-any-token", "skip bearer-token checks on the Google APIs (HTTP v1, topic management)", \.acceptAnyToken),
        .bool(
            "--access-log",
            "print one line per request on standard output: time, method, path (without the query), status, milliseconds; off by default",
            \.accessLog),
        Option(flag: "--clock", help: "system or manual (advanced by POST /emulator/v1/clock:advance)", takesValue: true) {
            c, v throws(ConfigurationError) in
            guard let mode = Clock.Mode(rawValue: v) else {
                throw ConfigurationError(description: "--clock: '\(v)' is not system or manual")
            }
            c.clock = mode
        },
        .int(
            "--background-budget", "iOS background pushes an app gets per hour before iOS holds them back (default 3)",
            0...1_000_000, \.backgroundBudget),
        .int(
            "--quota-per-minute", "HTTP v1 messages per minute per project before 429 QUOTA_EXCEEDED (default 600000)",
            1...100_000_000, \.quotaPerMinute),
        .int(
            "--device-rate-limit",
            "messages per minute an Android device takes before DeviceMessageRateExceeded / QUOTA_EXCEEDED (default 240, with 5000 an hour; 0 turns both off, and the throttling of collapsible messages)",
            0...1_000_000, \.deviceRateLimit),
        .int(
            "--max-events", "events kept in memory; older ones are evicted and counted (default 1000000)", 1...100_000_000,
            \.maxEvents),
        Option(
            flag: "--max-age",
            help: "how long events are kept, e.g. 3600, 90m, 24h, 7d; older ones are evicted and counted (default: no limit)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.maxAgeSeconds = try duration(v, "--max-age")
        },
        .int("--max-messages", "sends kept for GET .../messages (default 100000)", 1...10_000_000, \.maxMessages),
        .int(
            "--max-message-mb", "MiB of request bodies kept with those sends, per project (default 256)", 1...1_048_576,
            \.maxMessageBytes, megabytes: true),
        .int(
            "--max-total-message-mb",
            "MiB of request bodies kept with the sends of all projects together; the project holding most gives up its oldest first (default 1024)",
            1...1_048_576, \.maxTotalMessageBytes, megabytes: true),
        .int(
            "--max-devices",
            "devices the control API registers in all projects together, about 1 KB each; beyond it, 429 RESOURCE_EXHAUSTED (default 2000000)",
            1...100_000_000, \.maxDevices),
        .int(
            "--max-projects",
            "projects that can exist; beyond it, a new project id gets 429 RESOURCE_EXHAUSTED instead of being created on first use (default 100)",
            1...100_000, \.maxProjects),
        .int("--max-connections", "open connections accepted at once (default 4096)", 1...1_000_000, \.maxConnections),
        .int(
            "--timeout",
            "seconds a connection may stay silent, mid-request (headers, body) or idle between keep-alive requests (default 30)",
            1...86_400, \.timeoutSeconds),
        Option(
            flag: "--tls-port",
            help:
                "TLS port for HTTP/2 and HTTP/1.1 (FCM, OAuth, APNs); 0 picks a free one, off turns TLS off (default \(defaultTLSPort); a free one with --port 0)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.tlsPortGiven = .some(v == "off" ? nil : try int(v, "--tls-port", 0...65535))
        },
        Option(
            flag: "--mcs-port",
            help:
                "TLS port of MCS, the connection real FCM clients (Chrome, firebase-messaging) receive on; 0 picks a free one, off turns it off (default \(defaultMCSPort); off with --tls-port off, a free one with --tls-port 0)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.mcsPortGiven = .some(v == "off" ? nil : try int(v, "--mcs-port", 0...65535))
        },
        Option(
            flag: "--tls-cert", help: "PEM certificate chain to serve instead of the one pushmock issues (with --tls-key)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.tlsCertificate = v
        },
        Option(flag: "--tls-key", help: "PEM private key of --tls-cert", takesValue: true) { c, v throws(ConfigurationError) in
            c.tlsKey = v
        },
        Option(
            flag: "--tls-san",
            help:
                "an extra DNS name or IP address for the issued server certificate; repeatable, comma-separated in the variable",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.tlsSANs += names(v)
        },
        Option(
            flag: "--allow-host",
            help:
                "a host name the control API and dashboard also answer to (they answer to loopback, the certificate's names and --host); `*` for any; repeatable, comma-separated in the variable",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.allowedHosts += names(v)
        },
        Option(
            flag: "--control-token", help: "a bearer token the control API requires (the dashboard: open /#token=...)",
            takesValue: true
        ) {
            c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw ConfigurationError(description: "--control-token: empty") }
            c.controlToken = v
        },
        .path(
            "--cert-dir",
            "where the local CA and server certificate are kept (default $XDG_DATA_HOME/pushmock/certs, else ~/.local/share/pushmock/certs)"
        ) { $0.certDirectory = $1 },
        .path(
            "--data-dir",
            "keep the delivery log (DIR/pushmock.db, SQLite, FCM's BigQuery columns), devices, keys and subscriptions across restarts; default: memory only"
        ) { $0.dataDirectory = $1 },
        Option(
            flag: "--sync",
            help:
                "batch (events on disk within 50 ms of the answer) or always (before the answer); with --data-dir (default batch)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.syncAlways = try second(of: ("batch", "always"), v, "--sync")
        },
        .int(
            "--disk-reserve-mb",
            "MiB of disk kept back under --data-dir so sends already answered are written when the disk fills; 0 = none (default 16)",
            0...65_536, \.diskReserveBytes, megabytes: true),
        .path(
            "--seed",
            "a JSON fixture of projects, keys, apps, APNs keys, service accounts, devices and topics to load at start (docs/control-api.md)"
        ) { $0.seedFile = $1 },
        Option(
            flag: "--legacy-api",
            help:
                "available (FCM's legacy API as it answered before its shutdown) or shutdown (404, as Google answers since; each call logged) (default available)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            c.legacyAPIShutDown = try second(of: ("available", "shutdown"), v, "--legacy-api")
        },
        Option(
            flag: "--webhook",
            help:
                "POST every device's delivery events of every project to this http:// or https:// URL, signed (docs/bridges.md)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            if let problem = Bridge.webhookURLProblem(v) { throw ConfigurationError(description: "--webhook: \(problem)") }
            c.webhookURL = v
        },
        Option(
            flag: "--webhook-secret",
            help: "the HMAC-SHA256 key of --webhook's X-Pushmock-Signature header (default: random, printed at start)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            guard !v.isEmpty else { throw ConfigurationError(description: "--webhook-secret: empty") }
            c.webhookSecret = v
        },
        Option(
            flag: "--allow-command",
            help:
                "a program command bridges may run, as their argv[0] names it, or * for any; repeatable, comma-separated in the variable (default: none, command bridges are refused)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            let programs = names(v)
            guard !programs.isEmpty else { throw ConfigurationError(description: "--allow-command: empty") }
            c.allowedCommands += programs
        },
        Option(
            flag: "--apns-environment",
            help:
                "sandbox or production: the APNs environment of requests whose host is not api.push.apple.com or api.sandbox.push.apple.com (default sandbox)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            guard let env = APNsEnvironment(rawValue: v) else {
                throw ConfigurationError(description: "--apns-environment: '\(v)' is not sandbox or production")
            }
            c.apnsEnvironment = env
        },
        Option(
            flag: "--web-push-hosts",
            help:
                "local or real: whether Web devices' push endpoints are on pushmock's own address or on the push services' hosts (fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com) mapped to pushmock (default local)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            guard v == "local" || v == "real" else {
                throw ConfigurationError(description: "--web-push-hosts: '\(v)' is not local or real")
            }
            c.webPushRealHosts = v == "real"
        },
        Option(
            flag: "--chaos",
            help:
                "failure injection for every project, as surface.field=value pairs, comma-separated: surfaces legacy, v1, topics, apns, webpush; fields error_rate, error, retry_after, latency_ms, jitter_ms, drop_rate, drop (docs/chaos.md)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            do throws(ChaosSettingsError) { c.chaos = try ChaosSettings.parse(flag: v) } catch {
                throw ConfigurationError(description: "--chaos: \(error.message)")
            }
        },
        Option(
            flag: "--chaos-seed", help: "seeds the chaos generator so a run's injected failures repeat (default: random)",
            takesValue: true
        ) { c, v throws(ConfigurationError) in
            guard let n = UInt64(v) else {
                throw ConfigurationError(description: "--chaos-seed: '\(v)' is not a whole number from 0 to 18446744073709551615")
            }
            c.chaosSeed = n
        },
    ]

    /// `$XDG_DATA_HOME/pushmock/certs`, else `~/.local/share/pushmock/certs`, else a folder
    /// under /tmp when there is no home.
    public static func defaultCertDirectory(_ environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/pushmock/certs" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/pushmock/certs" }
        return "/tmp/pushmock/certs"
    }

    /// Builds the configuration: variables first, then flags in order.
    public static func load(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> Configuration {
        var c = Configuration()
        c.certDirectory = defaultCertDirectory(environment)
        for option in options {
            guard let v = environment[option.variable] else { continue }
            // A bad variable is reported by its own name, not the flag's.
            do { try option.apply(&c, option.takesValue ? v : v.lowercased()) } catch {
                throw ConfigurationError(
                    description: error.description.replacingOccurrences(of: option.flag, with: option.variable))
            }
        }
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            let parts = arg.split(separator: "=", maxSplits: 1).map(String.init)
            guard let option = options.first(where: { $0.flag == parts[0] }) else {
                throw ConfigurationError(description: "unknown flag '\(arg)' (see --help)")
            }
            if option.takesValue {
                if parts.count == 2 {
                    try option.apply(&c, parts[1])
                } else {
                    // `--port --tls-port 0`: the next flag is not this one's value.
                    guard i + 1 < arguments.count, !arguments[i + 1].hasPrefix("--") else {
                        throw ConfigurationError(description: "\(option.flag) needs a value")
                    }
                    i += 1
                    try option.apply(&c, arguments[i])
                }
            } else {
                try option.apply(&c, parts.count == 2 ? parts[1] : "true")
            }
            i += 1
        }
        guard (c.tlsCertificate == nil) == (c.tlsKey == nil) else {
            throw ConfigurationError(description: "--tls-cert and --tls-key go together")
        }
        return c
    }

    /// The `--help` text: every flag with its variable.
    public static var usage: String {
        var s = """
            usage: pushmock [flags]
                   pushmock --version

            A local FCM and APNs: point app servers at http://127.0.0.1:\(defaultPort) (TLS and APNs on
            https://127.0.0.1:\(defaultTLSPort)) instead of Google and Apple. The dashboard is the HTTP
            port's root: http://127.0.0.1:\(defaultPort)/. Every flag has a PUSHMOCK_* variable; flags win.


            """
        let flags = options.map { $0.flag + ($0.takesValue ? " " + $0.valueName : "") }
        // The variables line up after the longest flag; none is cut.
        let width = flags.map(\.count).max() ?? 0
        for (o, flag) in zip(options, flags) {
            s += "  \(flag.padding(toLength: width, withPad: " ", startingAt: 0))  \(o.variable)\n      \(o.help)\n"
        }
        return s
    }

    /// A repeatable flag's names: comma-separated (as in its variable), trimmed, none empty.
    static func names(_ v: String) -> [String] {
        v.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// For a flag that takes one of two words: whether `v` is the second.
    static func second(of words: (String, String), _ v: String, _ flag: String) throws(ConfigurationError) -> Bool {
        guard v == words.0 || v == words.1 else {
            throw ConfigurationError(description: "\(flag): '\(v)' is not \(words.0) or \(words.1)")
        }
        return v == words.1
    }

    static func int(_ v: String, _ flag: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let n = Int(v), range.contains(n) else {
            throw ConfigurationError(
                description: "\(flag): '\(v)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    /// Seconds from `N`, `Ns`, `Nm`, `Nh` or `Nd`.
    static func duration(_ v: String, _ flag: String) throws(ConfigurationError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = v.last.flatMap { units[$0] }
        guard let n = Int(unit == nil ? v : String(v.dropLast())), n > 0, n <= 3650 * 86_400 / (unit ?? 1) else {
            throw ConfigurationError(
                description: "\(flag): '\(v)' is not a duration (a number of seconds, or N followed by s, m, h or d)")
        }
        return n * (unit ?? 1)
    }

    static func bool(_ v: String, _ flag: String) throws(ConfigurationError) -> Bool {
        switch v.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError(description: "\(flag): '\(v)' is not true or false")
        }
    }

    /// Firebase project ids: lower-case letters, digits and hyphens.
    public static func isProjectID(_ s: String) -> Bool {
        guard (1...63).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }
}
