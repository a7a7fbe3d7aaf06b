import Glibc
import PushMockCore
import PushMockServer

/// Writes one line straight to a file descriptor, so it reaches a pipe at once.
func say(_ line: String, fd: Int32 = 1) {
    let text = line + "\n"
    _ = text.withCString { write(fd, $0, strlen($0)) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    say(Configuration.usage)
    exit(0)
}

do {
    let configuration = try Configuration.load(arguments: arguments, environment: ProcessInfoEnvironment.current)
    let server = try Server(configuration: configuration)
    let listeners = try server.start()
    say("pushmock: project \(configuration.project), server key\(configuration.serverKeys.count > 1 ? "s" : "") "
        + configuration.serverKeys.joined(separator: ", ") + (configuration.acceptAnyKey ? " (any key accepted)" : ""))
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
