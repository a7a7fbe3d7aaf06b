/// What the server provides the gateway, handed over once at construction: everything the
/// gateway cannot do itself without sockets, files or C libraries.
public struct ServerServices {
    /// RSA and P-256 keys, signatures and certificates (OpenSSL's in the server).
    public var keys: (any KeyService)?
    /// Web Push's key agreement, ciphers and signatures (OpenSSL's in the server); nil: Web
    /// devices have no push subscription.
    public var webPush: (any WebPushCrypto)?
    /// The dashboard's files by path (`/`, `/ui/main.js`, ..., `/emulator/v1/openapi.json`).
    public var assets: [String: Response]
    /// The durable log, with `--data-dir`; nil keeps the log in memory only.
    public var durableLog: DurableLog?
    /// Set by the server when it starts shutting down (APNs then answers 503 Shutdown).
    public var shutdown: ShutdownFlag
    /// Carries bridged events out (HTTP, processes); nil: bridges are kept but carry nothing.
    public var bridgeCarrier: (any BridgeCarrier)?
    /// Undoes a gzip request body (zlib's in the server; Android's Firebase SDK gzips every
    /// Installations request); nil when absent, or not gzip, or larger than the body limit.
    public var inflate: (([UInt8]) -> [UInt8]?)?

    public init(
        keys: (any KeyService)? = nil, webPush: (any WebPushCrypto)? = nil, assets: [String: Response] = [:],
        durableLog: DurableLog? = nil,
        shutdown: ShutdownFlag = ShutdownFlag(), bridgeCarrier: (any BridgeCarrier)? = nil,
        inflate: (([UInt8]) -> [UInt8]?)? = nil
    ) {
        self.inflate = inflate
        self.keys = keys
        self.webPush = webPush
        self.assets = assets
        self.durableLog = durableLog
        self.shutdown = shutdown
        self.bridgeCarrier = bridgeCarrier
    }
}

/// The durable log as the gateway uses it: what to resume from, where new events go, and
/// whether it can still write.
public struct DurableLog {
    /// Where it is, for error messages.
    public var path: String
    /// The saved control-plane state (a seed fixture), if any: the projects, whose devices
    /// are in `savedDevices` (an old store's snapshot holds its devices itself).
    public var savedState: [UInt8]?
    /// The saved devices' rows, by project.
    public var savedDevices: [String: SavedDeviceRows] = [:]
    /// Reads the newest stored events back, oldest first, a group at a time; throws when the
    /// store cannot be read. `knownToken` gives the token a device id's device holds, if any:
    /// a stored token that is the same is handed back as that String.
    public var readEvents: (_ knownToken: (String) -> String?, _ body: (StoredGroup) -> Void) throws(SeedError) -> Void
    /// The last seq the store holds.
    public var lastStoredSeq: Int64
    /// Receives every event appended from now on.
    public var sink: any EventSink
    /// Sends a stop cut short before they were answered, as `project id NUL message id`: their
    /// events are left out of the log (`EventSink.unanswered`).
    public var cutShort: Set<String> = []
    /// Whether the store cannot write (a full disk): sends are then refused with the
    /// services' 503 while reads go on.
    public var isFailing: () -> Bool
    /// `--sync always`: blocks until the log is on disk through a seq; false when it cannot be.
    public var waitUntilStored: ((Int64) -> Bool)?
    /// `--sync always` without blocking: whether the log is on disk through a seq, nil while
    /// the commit is under way.
    public var isStored: ((Int64) -> Bool?)?

    public init(
        path: String, savedState: [UInt8]?,
        readEvents: @escaping (_ knownToken: (String) -> String?, _ body: (StoredGroup) -> Void) throws(SeedError) -> Void,
        lastStoredSeq: Int64, sink: any EventSink,
        isFailing: @escaping () -> Bool, waitUntilStored: ((Int64) -> Bool)?, isStored: ((Int64) -> Bool?)? = nil
    ) {
        self.path = path
        self.savedState = savedState
        self.readEvents = readEvents
        self.lastStoredSeq = lastStoredSeq
        self.sink = sink
        self.isFailing = isFailing
        self.waitUntilStored = waitUntilStored
        self.isStored = isStored
    }
}

/// One project's saved device rows (each a fixture's device), back to back in large buffers
/// as the store read them: a buffer holds many rows, not one, and a full one is kept as it
/// is, where a single buffer that grew would copy every row read so far at each growth
/// (docs/PERFORMANCE.md).
public struct SavedDeviceRows: Sendable {
    /// Buffers of whole rows, each with how many rows it holds; rows go to the last one.
    private var chunks: [(bytes: [UInt8], rows: Int)] = []
    /// Where each row ends in its buffer.
    private var ends: [Int] = []
    private static let chunkSize = 1 << 20

    public init() {}

    public var count: Int { ends.count }

    public mutating func append(_ row: UnsafeBufferPointer<UInt8>) {
        if chunks.last.map({ $0.bytes.count + row.count > $0.bytes.capacity }) ?? true {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(max(Self.chunkSize, row.count))
            chunks.append((bytes, 0))
        }
        let last = chunks.count - 1
        chunks[last].bytes.append(contentsOf: row)
        chunks[last].rows += 1
        ends.append(chunks[last].bytes.count)
    }

    /// Each row, in the order appended.
    public func eachRow<E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> Void) throws(E) {
        var row = 0
        for chunk in chunks {
            try chunk.bytes.withUnsafeBufferPointer { (all) throws(E) in
                var start = 0
                for end in ends[row..<(row + chunk.rows)] {
                    try body(UnsafeBufferPointer(rebasing: all[start..<end]))
                    start = end
                }
            }
            row += chunk.rows
        }
    }
}

/// Raised once by the server when it begins a graceful shutdown. Loop thread only.
public final class ShutdownFlag {
    public private(set) var isRaised = false

    public init() {}

    public func raise() { isRaised = true }
}
