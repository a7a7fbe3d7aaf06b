// swift-tools-version:6.0
import PackageDescription

// Release builds skip Swift's run-time exclusivity checks (about 5% of the instructions of a
// send, measured with callgrind; docs/PERFORMANCE.md). All state lives on one loop thread, and
// the debug builds the tests run keep the checks, so a violation still traps there.
let releaseSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

// The C targets' debug information in DWARF 4, as the Swift code's is: Debian's valgrind
// (3.19, which `make bench-instructions` runs) cannot read the DWARF 5 clang writes by default
// once there is more than one such file, and gives up on the binary.
let cSettings: [CSetting] = [.unsafeFlags(["-gdwarf-4"])]

let package = Package(
    name: "pushmock",
    products: [
        .executable(name: "pushmock", targets: ["pushmock"])
    ],
    targets: [
        .systemLibrary(
            name: "CLibevent", pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CNghttp2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // Gzip request bodies (Android's Firebase Installations requests).
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // The dashboard's files (dashboard/, Chart.js from Debian's libjs-chart.js,
        // docs/openapi.json), embedded at build time with C's #embed.
        .target(name: "CDashboard", cSettings: cSettings),
        // One GNU extension of posix_spawn that Swift's Glibc module leaves out.
        .target(name: "CSpawn", cSettings: cSettings),
        // A cache prefetch hint, for the message store and the event log.
        .target(name: "CPrefetch", cSettings: cSettings),
        // Sixteen bytes compared at once, for the JSON parser's strings.
        .target(name: "CByteScan", cSettings: cSettings),
        .target(name: "PushMockCore", dependencies: ["CPrefetch", "CByteScan"], swiftSettings: releaseSettings),
        .target(
            name: "PushMockServer",
            dependencies: [
                "PushMockCore", "CLibevent", "COpenSSL", "CNghttp2", "CSQLite", "CZlib", "CDashboard", "CSpawn",
            ],
            swiftSettings: releaseSettings),
        // Release builds allocate with mimalloc (Debian's libmimalloc; why and what it was
        // measured to save: docs/PERFORMANCE.md). Linked into the executable, it stands in for
        // glibc's allocator for the whole process. Debug builds, and the address-sanitized
        // one, keep glibc's.
        .executableTarget(
            name: "pushmock", dependencies: ["PushMockServer", "PushMockCore"],
            linkerSettings: [.linkedLibrary("mimalloc", .when(configuration: .release))]),
        .testTarget(name: "PushMockCoreTests", dependencies: ["PushMockCore"]),
        // The server tests start the `pushmock` binary; OpenSSL lets their raw HTTP/1.1 client
        // speak TLS, so the same framing tests run on both ports.
        .testTarget(name: "PushMockServerTests", dependencies: ["COpenSSL"]),
    ],
    swiftLanguageModes: [.v6]
)
