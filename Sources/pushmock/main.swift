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

tuneMalloc()
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

/// Two glibc tunables, read only when a process starts, so the server re-executes itself once
/// with them set (docs/PERFORMANCE.md):
/// - the per-thread cache keeps 7 freed blocks of each size, fewer than a request frees and
///   allocates, so without more most allocations take malloc's slow path. 1,000 blocks of each
///   of the 64 cached sizes (at most 1 KiB) bound what the cache can hold to about 33 MB per
///   thread;
/// - `hugetlb=1` asks for transparent huge pages on the heap (where the kernel leaves them to
///   `madvise`): a million devices take far fewer page faults, and their look-ups miss the TLB
///   less.
func tuneMalloc() {
    let tunables = "glibc.malloc.tcache_count=1000:glibc.malloc.hugetlb=1"
    let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
    guard !current.contains("glibc.malloc.tcache_count") else { return }
    setenv("GLIBC_TUNABLES", current.isEmpty ? tunables : current + ":" + tunables, 1)
    // On failure (no /proc, say) pushmock carries on untuned.
    execv("/proc/self/exe", CommandLine.unsafeArgv)
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
