internal import CLibevent
import PushMockCore

/// Something that can answer one request later: an HTTP/1.1 exchange or an HTTP/2 stream.
protocol Responder: AnyObject {
    func respond(_ response: Response)
    /// Ends the connection with no answer (chaos): at once, or over HTTP/2 after a GOAWAY
    /// that tells the client this request was not processed.
    func drop(_ mode: DropMode)
}

/// Carries out the gateway's reply to one request; `stream` is its answer as an event stream.
func carry(
    _ reply: Reply, to responder: any Responder, stream: @autoclosure () -> any StreamResponder,
    polls: LongPolls, streams: EventStreams
) {
    switch reply {
    case .response(let response): responder.respond(response)
    case .waitForEvents(let wait): polls.park(responder, wait, stream: stream())
    case .stream(let events): streams.open(stream(), events)
    case .paged(let answer): streams.open(stream(), answer)
    case .delayed(let response, let seconds): polls.answer(responder, response, after: seconds)
    case .sliced(let work): polls.work(responder, work)
    case .drop(let mode): responder.drop(mode)
    // Only an HTTP/1.1 session switches protocols (`HTTP1Session.openWebSocket`); HTTP/2 has
    // no `Upgrade` (RFC 9113 §8.2.2).
    case .webSocket: responder.respond(.text(400, "A WebSocket opens over HTTP/1.1 (RFC 6455)."))
    }
    polls.noteChanges()
}

/// Requests answered later: long-polls on `GET .../events?wait=`, answered as soon as the
/// log has enough matching events (a long log read a few milliseconds a turn), or when
/// their wait runs out; answers chaos delays, sent when their timer fires; and work done in
/// slices (`SlicedWork`), a few milliseconds a turn of the loop, taking turns, answered when
/// done. All are answered at once at shutdown (work is finished first).
final class LongPolls {
    fileprivate enum Pending {
        /// A long-poll, and the same request as a stream (for a long list).
        case events(EventWait, any StreamResponder)
        case fixed(Response)
    }

    fileprivate final class Parked {
        unowned let owner: LongPolls
        let request: any Responder
        var pending: Pending
        /// The deadline timer; freed when the request is answered.
        var timer: LoopEvent?

        init(owner: LongPolls, request: any Responder, pending: Pending) {
            self.owner = owner
            self.request = request
            self.pending = pending
        }
    }

    private let base: EventBase
    private let gateway: Gateway
    /// Where a long-poll's long list is streamed.
    private let streams: EventStreams
    /// Loop thread only.
    private var parked: [ObjectIdentifier: Parked] = [:]
    private var lastSeenSeq: Int64 = 0
    /// Sliced work waiting for its turn, oldest first, and the zero-delay timer that runs the
    /// next slice once the loop has polled every socket.
    private var working: [(request: any Responder, work: SlicedWork)] = []
    private var workTimer: LoopEvent?
    /// The zero-delay timer that goes on reading the log for long-polls whose checks have not
    /// read it all (`recheck`).
    private var readTimer: LoopEvent?
    /// A slice runs steps for at most this long.
    static let sliceNanos: UInt64 = 5_000_000

    init(base: EventBase, gateway: Gateway, streams: EventStreams) {
        self.base = base
        self.gateway = gateway
        self.streams = streams
    }

    var count: Int { parked.count }
    /// Whether work whose state rows wait for its answer (`SlicedWork.savesWhenDone`) runs.
    var holdsStateRows: Bool { working.contains { $0.work.savesWhenDone } }

    func park(_ request: any Responder, _ wait: EventWait, stream: any StreamResponder) {
        hold(Parked(owner: self, request: request, pending: .events(wait, stream)), seconds: wait.seconds)
        if !gateway.readers.isCaughtUp(wait) { readOnNextTurn() }
    }

    /// Runs `work` in slices and answers `request` when it is done.
    func work(_ request: any Responder, _ work: SlicedWork) {
        working.append((request, work))
        if workTimer == nil {
            workTimer = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: runSlice, argument: Unmanaged.passUnretained(self).toOpaque())
        }
        workTimer?.add(seconds: 0)
    }

    /// One slice of the oldest work; unfinished, it goes to the back of the line.
    fileprivate func slice() {
        guard !working.isEmpty else { return }
        let (request, work) = working.removeFirst()
        let start = MonotonicClock.nanos()
        var waiting = false
        step: while MonotonicClock.nanos() - start < Self.sliceNanos {
            switch work.step() {
            case .more: continue
            case .waiting:
                waiting = true
                break step
            case .done(let answer):
                request.respond(answer)
                noteChanges()
                if !working.isEmpty { workTimer?.add(seconds: 0) }
                return
            }
        }
        working.append((request, work))
        noteChanges()
        // Only waiting (for a commit): look again in a millisecond rather than spin.
        let allWaiting = waiting && working.count == 1
        workTimer?.add(seconds: allWaiting ? 0.001 : 0)
    }

    /// Sends `response` after `seconds` (chaos latency).
    func answer(_ request: any Responder, _ response: Response, after seconds: Double) {
        hold(Parked(owner: self, request: request, pending: .fixed(response)), seconds: seconds)
    }

    private func hold(_ p: Parked, seconds: Double) {
        // The timer's argument is the Parked object, kept alive by `parked` until answered.
        guard
            let timer = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: longPollExpired,
                argument: Unmanaged.passUnretained(p).toOpaque())
        else { return send(p) }
        p.timer = timer
        parked[ObjectIdentifier(p)] = p
        timer.add(seconds: seconds)
    }

    /// Answers a request taken off the parked list: a long-poll's events (a long list
    /// streamed) or the delayed response.
    private func send(_ p: Parked) {
        switch p.pending {
        case .events(let wait, let stream):
            carry(gateway.readers.finish(wait), to: p.request, stream: stream, polls: self, streams: streams)
        case .fixed(let response): p.request.respond(response)
        }
    }

    /// Re-checks parked long-polls when the log has grown. (Called after every request: with
    /// none parked, the usual case, nothing is walked.)
    func noteChanges() {
        if !parked.isEmpty, gateway.log.lastSeq != lastSeenSeq {
            lastSeenSeq = gateway.log.lastSeq
            recheck()
        }
    }

    /// Answers every parked request whose condition now holds. A check reads a bounded run
    /// of the log (`EventReaders.isReady`) and the checks stop once a slice's time is spent:
    /// while a long-poll has not read the whole log, the rest is read in the loop's next turn.
    func recheck() {
        let start = MonotonicClock.nanos()
        var behind = false
        for p in parked.values {
            guard case .events(var wait, let stream) = p.pending else { continue }
            guard MonotonicClock.nanos() - start < Self.sliceNanos else {
                behind = true
                break
            }
            let ready = gateway.readers.isReady(&wait)
            p.pending = .events(wait, stream)
            if ready { answer(p) } else if !gateway.readers.isCaughtUp(wait) { behind = true }
        }
        if behind { readOnNextTurn() }
    }

    /// Runs `recheck` again once the loop has polled every socket.
    private func readOnNextTurn() {
        if readTimer == nil {
            readTimer = try? LoopEvent(
                base: base, fd: -1, what: 0, callback: readOn, argument: Unmanaged.passUnretained(self).toOpaque())
        }
        readTimer?.add(seconds: 0)
    }

    /// Answers everything now (shutdown); sliced work is finished first.
    func answerAll() {
        for (request, work) in working { request.respond(work.finish()) }
        working.removeAll()
        for p in parked.values { answer(p) }
    }

    fileprivate func answer(_ p: Parked) {
        guard parked.removeValue(forKey: ObjectIdentifier(p)) != nil else { return }
        p.timer?.remove()
        send(p)
        p.timer = nil
    }
}

private func longPollExpired(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let parked = Unmanaged<LongPolls.Parked>.fromOpaque(arg).takeUnretainedValue()
    parked.owner.answer(parked)
}

private func readOn(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<LongPolls>.fromOpaque(arg).takeUnretainedValue().recheck()
}

private func runSlice(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    Unmanaged<LongPolls>.fromOpaque(arg).takeUnretainedValue().slice()
}
