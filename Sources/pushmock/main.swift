import Glibc
import PushMockCore
import PushMockServer

/// Writes one line straight to a file descriptor, so it reaches a pipe at once.
func say(_ line: String, fd: Int32 = 1) {
    let text = line + "\n"
    _ = text.withCString { write(fd, $0, strlen($0)) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--version"] || arguments == ["version"] {
    say("pushmock \(Configuration.version)")
    exit(0)
}
if arguments.contains("--help") || arguments.contains("-h") {
    say(
        Configuration.usage + """

            Commands:
              pushmock service-account [--host H] [--port P] [--project ID]
                  print the project's service-account JSON from the pushmock running at H:P;
                  its token_uri points at that pushmock, so google-auth and the Admin SDKs accept it
              pushmock health [--host H] [--port P]
                  exit 0 when the pushmock at H:P answers GET /healthz (a container HEALTHCHECK)

            """)
    exit(0)
}

if arguments.first == "health" {
    do {
        let c = try Configuration.load(arguments: Array(arguments.dropFirst()), environment: ProcessInfoEnvironment.current)
        let host = c.host == "0.0.0.0" ? "127.0.0.1" : c.host == "::" ? "::1" : c.host
        let answer = try ControlClient.get(host: host, port: c.port, path: "/healthz")
        exit(answer.status == 200 ? 0 : 1)
    } catch {
        say("pushmock: health: \(error)", fd: 2)
        exit(1)
    }
}

if arguments.first == "service-account" {
    do {
        let c = try Configuration.load(arguments: Array(arguments.dropFirst()), environment: ProcessInfoEnvironment.current)
        let host = c.host == "0.0.0.0" ? "127.0.0.1" : c.host
        let answer = try ControlClient.get(host: host, port: c.port, path: "/emulator/v1/projects/\(c.project)/serviceAccount")
        guard answer.status == 200 else {
            say("pushmock: service-account: \(answer.status) \(answer.body)", fd: 2)
            exit(1)
        }
        say(answer.body)
        exit(0)
    } catch {
        say("pushmock: service-account: \(error)", fd: 2)
        exit(1)
    }
}

do {
    let configuration = try Configuration.load(arguments: arguments, environment: ProcessInfoEnvironment.current)
    let server = try Server(configuration: configuration)
    let listeners = try server.start()
    let keys = server.gateway.serverKeys(ofProject: configuration.project)
    say(
        "pushmock: project \(configuration.project), server key\(keys.count > 1 ? "s" : "") "
            + keys.joined(separator: ", ") + (configuration.acceptAnyKey ? " (any key accepted)" : ""))
    // The listener lines come last: whoever waits for a URL has then seen everything.
    for line in listeners { say(line) }
    try server.run()
    say("pushmock: stopped")
    exit(0)
} catch let error as ConfigurationError {
    say("pushmock: \(error)", fd: 2)
    exit(2)
} catch {
    say("pushmock: \(error)", fd: 2)
    exit(1)
}

/// The process environment without Foundation.
enum ProcessInfoEnvironment {
    static var current: [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }
}
