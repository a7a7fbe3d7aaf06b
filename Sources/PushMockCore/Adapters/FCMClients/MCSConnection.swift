/// One client's MCS connection (docs/reference/fcm-clients.md §5): a `LoginRequest` first
/// (anything else closes it), then heartbeats, IQs with acknowledgements and upstream stanzas
/// in any order; the server sends its `LoginResponse`, data messages, heartbeats and `Close`.
/// Each side counts the packets it received (the login is the first); a client's
/// `last_stream_id_received` acknowledges every data message sent at or before that count.
/// Loop thread only.
final class MCSConnection: StreamEndpoint {
    private let server: MCSServer
    private var channel: (any StreamChannel)?
    private var reader = MCSReader()
    private var writer = MCSWriter()
    /// The client, once logged in.
    private(set) var device: Device?
    private(set) var androidID: UInt64?
    /// Packets received and sent on this connection.
    private var received = 0
    private var sent = 0
    /// Data messages sent and not yet acknowledged: their persistent id and stream position.
    private var unacknowledged: [(persistentID: String, position: Int, item: Pending)] = []
    /// When the client last sent anything, and when it was pinged for its silence (monotonic).
    private(set) var lastHeard = MonotonicClock.nanos()
    private(set) var pingedAt: UInt64?

    init(server: MCSServer) { self.server = server }

    var unacknowledgedCount: Int { unacknowledged.count }

    func opened(_ channel: any StreamChannel) {
        self.channel = channel
        server.opened(self)
    }

    func received(_ bytes: UnsafeRawBufferPointer) -> Int {
        var taken = 0
        while channel != nil, taken < bytes.count {
            let step: (consumed: Int, packet: (MCSTag, [UInt8])?)
            do throws(MCSReader.Failure) { step = try reader.read(UnsafeRawBufferPointer(rebasing: bytes[taken...])) } catch {
                close(sendingClose: false)
                return bytes.count
            }
            guard step.consumed > 0 else { break }
            taken += step.consumed
            lastHeard = MonotonicClock.nanos()
            pingedAt = nil
            if let (tag, payload) = step.packet { handle(tag, payload) }
        }
        return taken
    }

    func closed() {
        channel = nil
        let waiting = unacknowledged.map(\.item)
        unacknowledged = []
        server.disconnected(self, unacknowledged: waiting)
    }

    // MARK: Packets

    private func handle(_ tag: MCSTag, _ payload: [UInt8]) {
        received += 1
        guard let device else {
            guard tag == .loginRequest else { return close(sendingClose: false) }
            return login(payload)
        }
        device.realClient?.lastHeard = server.clock.now()
        do throws(ProtoReader.Malformed) {
            if let last = try MCSUpstream.lastStreamIDReceived(tag, payload) { acknowledge(upTo: last) }
            switch tag {
            case .heartbeatPing: send(.heartbeatAck, MCSUpstream.heartbeat(lastStreamIDReceived: received))
            case .iqStanza: for id in try MCSUpstream.acknowledged(payload) { acknowledge(id) }
            case .close: close(sendingClose: false)
            case .loginRequest, .loginResponse: close(sendingClose: false)
            // Acks, upstream data (Chrome's answers to idle probes) and stanzas pushmock does
            // not serve are taken and passed over, as Google's clients pass over its others.
            default: break
            }
        } catch {
            close(sendingClose: false)
        }
    }

    /// The login: answered with the request's `id` and the heartbeat interval, or refused with
    /// an `error` and closed.
    private func login(_ payload: [UInt8]) {
        guard let login = try? MCSLogin(payload) else { return close(sendingClose: false) }
        guard let device = server.login(self, login) else {
            send(.loginResponse, MCSLogin.refusal(id: login.id, code: 401, message: "authentication failed"))
            return close(sendingClose: false)
        }
        self.device = device
        androidID = UInt64(login.user)
        send(
            .loginResponse,
            MCSLogin.response(
                id: login.id, lastStreamIDReceived: received, now: server.clock.now(), heartbeatMillis: server.heartbeatMillis))
        server.loggedIn(device, received: login.receivedPersistentIDs)
    }

    /// A push, as a data message; it waits for the client's acknowledgement.
    func deliver(_ item: Pending, persistentID: String, stanza: MCSDataMessage) {
        var stanza = stanza
        stanza.lastStreamIDReceived = received
        send(.dataMessageStanza, stanza.bytes)
        unacknowledged.append((persistentID, sent, item))
    }

    private func acknowledge(upTo position: Int) {
        while let first = unacknowledged.first, first.position <= position {
            unacknowledged.removeFirst()
            if let device { server.acknowledged(first.item, persistentID: first.persistentID, by: device) }
        }
    }

    private func acknowledge(_ persistentID: String) {
        guard let i = unacknowledged.firstIndex(where: { $0.persistentID == persistentID }) else { return }
        let entry = unacknowledged.remove(at: i)
        if let device { server.acknowledged(entry.item, persistentID: persistentID, by: device) }
    }

    // MARK: Sending and closing

    func ping(at now: UInt64) {
        pingedAt = now
        send(.heartbeatPing, MCSUpstream.heartbeat(lastStreamIDReceived: received))
    }

    /// Another connection of the same client logged in: this one goes.
    func replaced() { close(sendingClose: true) }

    /// Closes, after a `Close` packet when the server ends a working session.
    func close(sendingClose: Bool) {
        guard let channel else { return }
        if sendingClose, device != nil { send(.close, []) }
        channel.close()
    }

    private func send(_ tag: MCSTag, _ message: [UInt8]) {
        guard let channel else { return }
        sent += 1
        channel.send(writer.packet(tag, message))
    }
}
