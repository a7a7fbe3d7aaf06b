import Glibc

/// What each signal does to pushmock (docs/hardening.md, "Signals"). Every signal whose
/// default would end the process, and that a process can catch, ends it the way SIGTERM does:
/// stop accepting, answer what waits, commit every acknowledged event, save the state, exit 0.
/// The signals a fault raises (SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGTRAP, SIGABRT, SIGSYS) are
/// left to Swift's crash report: the process cannot go on after them.
enum Signals {
    /// Graceful shutdown: the terminal's and the service managers' signals, the user-defined
    /// and timer signals a script might send, and the real-time signals glibc leaves free.
    static var shutdown: [Int32] {
        [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU]
            + Array(__libc_current_sigrtmin()...__libc_current_sigrtmax())
    }

    /// Ignored: a peer that closed (a write answers EPIPE instead) and a file grown past
    /// its limit (the write answers EFBIG, which the store reports as a failed write).
    static let ignored = [SIGPIPE, SIGXFSZ]

    /// Ignores `ignored`, and unblocks `shutdown`: a parent may have started us with them
    /// blocked (Foundation's Process does, from a Dispatch thread), and blocked they would
    /// never reach the loop.
    static func prepare() {
        for s in ignored { signal(s, SIG_IGN) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in shutdown { sigaddset(&unblock, s) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Ignores `shutdown` for the rest of the process: while it writes its last events.
    static func ignoreShutdownSignals() {
        for s in shutdown { signal(s, SIG_IGN) }
    }
}
