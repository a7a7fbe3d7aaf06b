import Testing

@testable import PushMockCore

@Suite("Configuration from flags and environment")
struct ConfigurationTests {
    @Test("zero flags give the documented defaults")
    func defaults() throws {
        let c = try Configuration.load(arguments: [], environment: [:])
        #expect(c.host == "127.0.0.1")
        #expect(c.port == Configuration.defaultPort)
        #expect(c.project == "demo-pushmock")
        #expect(c.serverKeys == [Configuration.defaultServerKey])
        #expect(!c.strictApps && !c.acceptAnyKey)
    }

    @Test("variables apply and flags win over them; --server-key repeats")
    func precedence() throws {
        let env = [
            "PUSHMOCK_PORT": "9000", "PUSHMOCK_HOST": "0.0.0.0", "PUSHMOCK_SERVER_KEY": "a,b", "PUSHMOCK_STRICT_APPS": "true",
        ]
        let c = try Configuration.load(
            arguments: ["--port", "0", "--server-key=c", "--server-key", "d", "--accept-any-key"], environment: env)
        #expect(c.port == 0)
        #expect(c.host == "0.0.0.0")
        #expect(c.serverKeys == ["a", "b", "c", "d"])
        #expect(c.strictApps && c.acceptAnyKey)
        #expect(try Configuration.load(arguments: ["--server-key", "x"], environment: [:]).serverKeys == ["x"])
    }

    @Test("bad values and unknown flags name the flag")
    func errors() throws {
        #expect(throws: ConfigurationError(description: "--port: '70000' is not a whole number in 0...65535")) {
            try Configuration.load(arguments: ["--port", "70000"], environment: [:])
        }
        #expect(throws: ConfigurationError(description: "unknown flag '--nope' (see --help)")) {
            try Configuration.load(arguments: ["--nope"], environment: [:])
        }
        #expect(throws: ConfigurationError(description: "--port needs a value")) {
            try Configuration.load(arguments: ["--port"], environment: [:])
        }
        #expect(throws: ConfigurationError.self) { try Configuration.load(arguments: ["--project", "Bad_Id"], environment: [:]) }
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(arguments: [], environment: ["PUSHMOCK_STRICT_APPS": "maybe"])
        }
        #expect(throws: ConfigurationError(description: "--disk-reserve-mb: '-1' is not a whole number in 0...65536")) {
            try Configuration.load(arguments: ["--disk-reserve-mb", "-1"], environment: [:])
        }
        #expect(throws: ConfigurationError(description: "--sync: 'sometimes' is not batch or always")) {
            try Configuration.load(arguments: ["--sync", "sometimes"], environment: [:])
        }
        #expect(try Configuration.load(arguments: ["--disk-reserve-mb", "0"], environment: [:]).diskReserveBytes == 0)
        // A bad variable is named as the variable; the next flag is never taken as a value.
        #expect(throws: ConfigurationError(description: "PUSHMOCK_PORT: 'abc' is not a whole number in 0...65535")) {
            try Configuration.load(arguments: [], environment: ["PUSHMOCK_PORT": "abc"])
        }
        #expect(throws: ConfigurationError(description: "--port needs a value")) {
            try Configuration.load(arguments: ["--port", "--tls-port", "0"], environment: [:])
        }
    }

    @Test("--port 0 picks free TLS and MCS ports too, unless they are given")
    func freePorts() throws {
        let picked = try Configuration.load(arguments: ["--port", "0"], environment: [:])
        #expect(picked.tlsPort == 0 && picked.mcsPort == 0)
        let given = try Configuration.load(arguments: ["--port", "0", "--tls-port", "4443"], environment: [:])
        #expect(given.tlsPort == 4443 && given.mcsPort == Configuration.defaultMCSPort)
        let off = try Configuration.load(arguments: ["--port", "0", "--tls-port", "off"], environment: [:])
        #expect(off.tlsPort == nil && off.mcsPort == nil)
        #expect(try Configuration.load(arguments: [], environment: [:]).tlsPort == Configuration.defaultTLSPort)
    }

    @Test("--help lists every flag whole, then its variable on the same line")
    func usage() throws {
        let lines = Configuration.usage.split(separator: "\n").map(String.init)
        for o in Configuration.options {
            let flag = "  " + o.flag + (o.takesValue ? " " + o.valueName + " " : " ")
            let line = lines.first { $0.hasPrefix(flag) }
            #expect(line?.hasSuffix(" " + o.variable) == true, "\(o.flag): \(line ?? "missing")")
        }
        // It says where the dashboard is.
        #expect(Configuration.usage.contains("The dashboard is the HTTP\nport's root: http://127.0.0.1:4010/"))
    }
}
