internal import CSpawn
import Foundation
import Glibc
import PushMockCore

/// Runs one program for a bridge, on a worker thread: its standard input is fed, its
/// standard output and error are read (the first `outputLimit` bytes kept), and it is killed
/// when its time is up (docs/bridges.md, "Commands").
enum ChildProcess {
    static let outputLimit = 1000

    struct Result {
        let succeeded: Bool
        /// `exit 0`, `exit 3`, `killed by signal 9`, `killed after 10 s`, or why it did not start.
        let status: String
        let output: String

        /// For the log: the status, then the output without its trailing white space.
        var summary: String {
            let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? status : status + ": " + trimmed
        }
    }

    static func run(_ argv: [String], environment: [(name: String, value: String)], input: [UInt8], timeout: Double) -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0 else { return Result(succeeded: false, status: "no pipe", output: "") }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0])
            close(toChild[1])
            return Result(succeeded: false, status: "no pipe", output: "")
        }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        // The child keeps its three standard descriptors and nothing else of pushmock's: not
        // these pipes, not the pipes another bridge thread has just made, no socket or file.
        let closing = pushmock_spawn_closefrom(&actions, 3)
        // The child starts with default signal dispositions and nothing blocked, not with
        // what pushmock ignores (`Signals.ignored`) or its worker thread blocks.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in Signals.ignored { sigaddset(&defaults, s) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let started = Clock.wallNow()
        let rc =
            closing != 0
            ? closing
            : withCStrings(argv) { cArgv in
                withCStrings(envStrings) { cEnv in posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, cEnv) }
            }
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            return Result(succeeded: false, status: "could not start \(argv[0]): \(String(cString: strerror(rc)))", output: "")
        }
        let deadline = started + Timestamp(timeout * 1_000_000)
        let (output, timedOut) = exchange(input: input, toChild: toChild[1], fromChild: fromChild[0], deadline: deadline)
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text =
            String(decoding: output.prefix(outputLimit), as: UTF8.self) + (output.count > outputLimit ? "…(truncated)" : "")
        let elapsed = (Clock.wallNow() - started) / 1000
        if timedOut { return Result(succeeded: false, status: "killed after \(formatSeconds(timeout)) s", output: text) }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        return Result(
            succeeded: exited && code == 0,
            status: (exited ? "exit \(code)" : "killed by signal \(status & 0x7f)") + " (\(elapsed) ms)", output: text)
    }

    /// Writes the input and reads the output together, so a program that writes before it
    /// reads cannot block either side; stops at end of output or at the deadline.
    private static func exchange(
        input: [UInt8], toChild: Int32, fromChild: Int32, deadline: Timestamp
    ) -> (output: [UInt8], timedOut: Bool) {
        var writer: Int32? = toChild
        _ = fcntl(toChild, F_SETFL, fcntl(toChild, F_GETFL) | O_NONBLOCK)
        if input.isEmpty {
            close(toChild)
            writer = nil
        }
        var written = 0
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer {
            if let writer { close(writer) }
            close(fromChild)
        }
        while true {
            let left = deadline - Clock.wallNow()
            if left <= 0 { return (output, true) }
            var fds = [pollfd(fd: fromChild, events: Int16(POLLIN), revents: 0)]
            if let writer { fds.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            if poll(&fds, nfds_t(fds.count), Int32(clamping: left / 1000 + 1)) < 0, errno != EINTR { return (output, false) }
            if fds.count == 2, fds[1].revents != 0, let w = writer {
                let n = input.withUnsafeBytes { write(w, $0.baseAddress! + written, input.count - written) }
                if n > 0 { written += n }
                if n < 0 && errno != EAGAIN || written == input.count {
                    close(w)
                    writer = nil
                }
            }
            if fds[0].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fromChild, $0.baseAddress, $0.count) }
                if n <= 0 { return (output, false) }
                if output.count <= outputLimit { output += buffer[0..<n] }
            }
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    static func formatSeconds(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}
