internal import CLibevent
import Foundation
import Glibc
import PushMockCore

/// pushmock's process: one libevent loop serving the gateway. `start()` binds and reports
/// the listeners; `run()` serves until a signal (`Signals.shutdown`), then shuts down gracefully.
public final class Server {
    public let configuration: Configuration
    public let gateway: Gateway
    /// The loop. Every part below that makes libevent objects holds it too, and `close()`
    /// ends the parts in a defined order.
    private let base: EventBase
    private let polls: LongPolls
    private let streams: EventStreams
    /// Every connection on both ports.
    private let connections: ConnectionTable
    private let certificates: CertificateStore
    /// The TLS port's identity, when there is one.
    private let tls: TLSContext?
    /// MCS's: the same certificate, no client certificate asked for.
    private let mcsTLS: TLSContext?
    /// The durable log, with `--data-dir`.
    private let store: EventStore?
    /// Carries bridged events out, off the loop.
    private let bridgeWorkers: BridgeWorkers
    /// Logs finished bridge attempts, every 100 ms.
    private var bridgeTimer: LoopEvent?
    private var signals: [LoopEvent] = []
    /// Signatures, certificates, and RSA keys made ahead.
    private let keys: OpenSSLKeys
    /// Expires stored messages on time, once a second.
    private var expiryTimer: LoopEvent?
    private var drainTimer: LoopEvent?
    private var drainDeadline: Timestamp = 0
    /// With `--data-dir`: hands the store the control-plane rows that changed, every 100 ms.
    private var stateTimer: LoopEvent?
    /// When rows were last handed to the writer (`saveStateIfChanged`).
    private var lastStateSave: UInt64 = 0
    private var closed = false
    /// What the durable log could not write at close (a full disk).
    private var unwritten: String?
    /// Raised when shutdown begins; the gateway's APNs answers 503 Shutdown from then on.
    private let shutdownFlag = ShutdownFlag()

    /// One line on standard error, for what the operator must know while serving goes on.
    static let warn: @Sendable (String) -> Void = { line in
        _ = (line + "\n").withCString { write(2, $0, strlen($0)) }
    }

    /// How long shutdown waits for open connections to finish.
    static let shutdownGrace = 2.0

    public init(configuration: Configuration) throws(ServerError) {
        self.configuration = configuration
        let certificates = try CertificateStore(
            directory: configuration.certDirectory, persistent: configuration.tlsPort != nil)
        self.certificates = certificates
        bridgeWorkers = BridgeWorkers(authorityPath: certificates.authorityPath)
        keys = OpenSSLKeys(certificates: certificates)
        var services = ServerServices(
            keys: keys, webPush: try OpenSSLWebPush(), assets: Dashboard.assets,
            shutdown: shutdownFlag, bridgeCarrier: bridgeWorkers)
        let bodyLimit = configuration.maxBodyBytes
        services.inflate = { GzipInflater.inflate($0, limit: bodyLimit) }
        var saved: (fixture: [UInt8], devices: [String: SavedDeviceRows], fromSnapshot: Bool)?
        if let directory = configuration.dataDirectory {
            // Resume from the saved control-plane state and the newest events.
            let store = try EventStore(
                directory: directory, certDirectory: configuration.certDirectory,
                reserveBytes: configuration.diskReserveBytes, warn: Self.warn)
            saved = try store.loadState()
            let cutShort = store.loadUnanswered()
            let limit = configuration.maxEvents
            services.durableLog = DurableLog(
                path: store.path, savedState: saved?.fixture,
                readEvents: { (knownToken, body) throws(SeedError) in
                    do throws(ServerError) { try store.readEvents(limit: limit, knownToken: knownToken, body) } catch {
                        store.readFailure = error
                        throw SeedError(description: error.description)
                    }
                },
                lastStoredSeq: store.lastStoredSeq, sink: store,
                isFailing: { store.isFailing },
                waitUntilStored: configuration.syncAlways ? { store.waitUntilStored($0) } : nil,
                isStored: configuration.syncAlways ? { store.isStored($0) } : nil)
            services.durableLog?.savedDevices = saved?.devices ?? [:]
            services.durableLog?.cutShort = Set(cutShort.map { $0.projectID + "\u{0}" + $0.messageID })
            self.store = store
        } else {
            store = nil
        }
        do { gateway = try Gateway(configuration: configuration, services: services) } catch {
            // The store's own failure to read, as it said it; otherwise the saved state's problem.
            throw store?.readFailure ?? ServerError(.configuration, error.description)
        }
        if let store {
            // An old store's snapshot becomes rows at the first commit; otherwise what was
            // just resumed is what is saved.
            if saved?.fromSnapshot == true { store.saveState(gateway.allState()) } else { gateway.resumedSavedState() }
        }
        if let durable = services.durableLog, gateway.unrestored.count > 0 {
            let u = gateway.unrestored
            Self.warn(
                "pushmock: WARNING: \(u.count) of the \(u.read) newest events in \(durable.path) could not be put back into the log: \(u.unknownKind) name no event pushmock logs (damaged rows), \(u.unknownProject) belong to a project the saved state lacks; the rows stay in the file"
            )
        }
        if let durable = services.durableLog, gateway.unrestored.cutShort > 0 {
            let u = gateway.unrestored
            Self.warn(
                "pushmock: \(u.cutShortSends) send\(u.cutShortSends == 1 ? "" : "s") cut short by the last stop before it was answered (a fan-out in progress): its \(u.cutShort) events are left out of the log; the rows stay in \(durable.path) (table unanswered names them)"
            )
        }
        // The writer starts once the state is resumed, as the first new events can come.
        store?.start()
        if let file = configuration.seedFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ServerError(.configuration, "--seed \(file): cannot read the file")
            }
            do { try gateway.seed(Array(data), file: file) } catch { throw ServerError(.configuration, error.description) }
        }
        base = try EventBase()
        streams = try EventStreams(base: base, gateway: gateway)
        polls = LongPolls(base: base, gateway: gateway, streams: streams)
        let dispatcher = RequestDispatcher(
            gateway: gateway, polls: polls, streams: streams, maxBodyBytes: configuration.maxBodyBytes,
            accessLog: configuration.accessLog)
        connections = try ConnectionTable(base: base, dispatcher: dispatcher, configuration: configuration, warn: Self.warn)
        if configuration.tlsPort != nil || configuration.mcsPort != nil {
            let identity: TLSContext.Identity
            if let chain = configuration.tlsCertificate, let key = configuration.tlsKey {
                identity = .files(chain: chain, key: key)
            } else {
                let (cert, key) = try certificates.issueServerCertificate(extraNames: configuration.tlsSANs)
                identity = .issued(cert, key)
            }
            tls = try TLSContext(identity: identity, clientAuthority: certificates.authority)
            mcsTLS = configuration.mcsPort == nil ? nil : try TLSContext(identity: identity, clientAuthority: nil)
        } else {
            tls = nil
            mcsTLS = nil
        }
    }

    /// Binds the listeners; returns one line per listener with its URL.
    public func start() throws(ServerError) -> [String] {
        let port = try connections.listen(host: configuration.host, port: configuration.port, tls: nil)
        var tlsPort: Int?
        if let tls, let requested = configuration.tlsPort {
            tlsPort = try connections.listen(host: configuration.host, port: requested, tls: tls)
        }
        var mcsPort: Int?
        if let tls = mcsTLS, let requested = configuration.mcsPort {
            let gateway = gateway
            do {
                mcsPort = try connections.listen(
                    host: configuration.host, port: requested, tls: tls,
                    choice: .own { connection in StreamSession(connection: connection, endpoint: gateway.mcsConnection()) })
            } catch  where configuration.mcsPortGiven == nil {
                // 5228 by default: a second pushmock on the machine (one with its own --port and
                // --tls-port) still starts, without MCS, and says so.
                Self.warn("pushmock: \(error.description); MCS is off (give --mcs-port to choose its port)")
            }
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        for sig in Signals.shutdown {
            let ev = try LoopEvent(base: base, fd: sig, what: Int16(EV_SIGNAL | EV_PERSIST), callback: serverSignal, argument: me)
            ev.add()
            signals.append(ev)
        }
        expiryTimer = try LoopEvent(base: base, fd: -1, what: Int16(EV_PERSIST), callback: serverTick, argument: me)
        expiryTimer?.add(seconds: 1)
        bridgeTimer = try LoopEvent(base: base, fd: -1, what: Int16(EV_PERSIST), callback: serverBridgeTick, argument: me)
        bridgeTimer?.add(seconds: 0.1)
        if store != nil {
            stateTimer = try LoopEvent(base: base, fd: -1, what: Int16(EV_PERSIST), callback: serverSaveState, argument: me)
            stateTimer?.add(seconds: 0.1)
        }
        Signals.prepare()
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        var lines: [String] = []
        if let store {
            lines.append(
                "pushmock: delivery log also in \(store.path) (table data, committed every \(Int(EventStore.commitInterval * 1000)) ms)"
            )
        }
        if let hook = gateway.webhookBridge, case .webhook(let h) = hook.target {
            lines.append(
                "pushmock: every delivery event also POSTed to \(h.url), signed with secret \(h.secret) (docs/bridges.md)")
        }
        lines += [
            "pushmock: HTTP/1.1 and h2c (FCM v1 and legacy, IID, OAuth, control API) on http://\(host):\(port)",
            "pushmock: dashboard on http://\(host):\(port)/ (open it in a browser)",
        ]
        if let tlsPort {
            lines.insert("pushmock: local CA certificate \(certificates.authorityPath) (also GET /emulator/v1/ca.pem)", at: 0)
            lines.append("pushmock: TLS (HTTP/2 and HTTP/1.1: FCM, OAuth, APNs /3/device) on https://\(host):\(tlsPort)")
        }
        if let mcsPort {
            lines.append("pushmock: MCS (the connection of real FCM clients, as mtalk.google.com) on tls://\(host):\(mcsPort)")
        }
        return lines
    }

    /// Serves until a signal's graceful shutdown completes; then saves the state and closes.
    /// Throws when acknowledged events could not be made durable (a full disk): they are
    /// lost, and the exit says so.
    public func run() throws(ServerError) {
        try base.run()
        // From here to the exit a signal must not cut the final commit and save short
        // (removing the signal events puts back the handlers from before they were added).
        signals.removeAll()
        Signals.ignoreShutdownSignals()
        saveStateIfChanged(limit: .max)
        close()
        if let lost = unwritten { throw ServerError(.configuration, lost) }
    }

    deinit { close() }

    /// Ends the parts in a defined order: the listeners and their connections first (they
    /// hand requests to the gateway), then parked long-polls and event streams, then the
    /// loop's own events and the bridges' workers, and last the durable log, which commits what is queued. The base
    /// goes when the last part holding it does.
    private func close() {
        guard !closed else { return }
        closed = true
        connections.close()
        polls.answerAll()
        streams.endAll()
        signals.removeAll()
        expiryTimer = nil
        drainTimer = nil
        bridgeWorkers.stop()
        keys.stopMakingKeys()
        gateway.collectBridgeAttempts()
        bridgeTimer = nil
        stateTimer = nil
        unwritten = store?.close()
    }

    /// Stop accepting, answer parked long-polls, let open connections finish (up to the
    /// grace period), then leave the loop.
    fileprivate func shutdown() {
        guard drainTimer == nil else { return }
        shutdownFlag.raise()
        connections.stopAccepting()
        // Streams end before long-polls are answered: a long-poll's long list then goes on
        // being written through the grace period.
        streams.endAll()
        polls.answerAll()
        // The signal events stay: a second signal during the grace period is taken and
        // changes nothing, instead of killing the process before it has saved.
        expiryTimer?.remove()
        drainDeadline = Clock.wallNow() + Timestamp(Self.shutdownGrace * 1_000_000)
        drainTimer = try? LoopEvent(
            base: base, fd: -1, what: Int16(EV_PERSIST), callback: serverDrain,
            argument: Unmanaged.passUnretained(self).toOpaque())
        drainTimer?.add(seconds: 0.02)
        if drainTimer == nil { base.exit(after: 0) }
    }

    fileprivate func tick() {
        gateway.expireDue()
        polls.noteChanges()
    }

    /// With `--data-dir`, hands the writer the rows of what changed: every 100 ms up to
    /// `stateChunk` devices (a large batch of new devices is saved over several steps, never
    /// holding the loop for long), and everything at shutdown. While a batch registration runs
    /// in slices, saving waits for its answer, or `stateDeferral` at most
    /// (`SlicedWork.savesWhenDone`).
    fileprivate func saveStateIfChanged(limit: Int = Server.stateChunk) {
        guard let store, !gateway.changes.isEmpty else { return }
        let now = MonotonicClock.nanos()
        if limit == Self.stateChunk, polls.holdsStateRows, now - lastStateSave < Self.stateDeferral { return }
        lastStateSave = now
        store.saveState(gateway.changedState(limit: limit))
    }

    static let stateChunk = 20_000
    static let stateDeferral: UInt64 = 5_000_000_000

    fileprivate func drain() {
        if connections.openConnections == 0 || Clock.wallNow() >= drainDeadline {
            drainTimer?.remove()
            base.exit(after: 0)
        }
    }
}

private func serverSignal(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Server>.fromOpaque(arg).takeUnretainedValue().shutdown()
}

private func serverBridgeTick(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Server>.fromOpaque(arg).takeUnretainedValue().gateway.collectBridgeAttempts()
}

private func serverSaveState(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Server>.fromOpaque(arg).takeUnretainedValue().saveStateIfChanged()
}

private func serverTick(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Server>.fromOpaque(arg).takeUnretainedValue().tick()
}

private func serverDrain(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<Server>.fromOpaque(arg).takeUnretainedValue().drain()
}
