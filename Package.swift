// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "pushmock",
    products: [
        .executable(name: "pushmock", targets: ["pushmock"]),
    ],
    targets: [
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent",
                       providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "PushMockCore"),
        .target(name: "PushMockServer",
                dependencies: ["PushMockCore", "CLibevent", "COpenSSL", "CNghttp2", "CSQLite"]),
        .executableTarget(name: "pushmock", dependencies: ["PushMockServer", "PushMockCore"]),
        .testTarget(name: "PushMockCoreTests", dependencies: ["PushMockCore"]),
        .testTarget(name: "PushMockServerTests"),
    ],
    swiftLanguageModes: [.v6]
)
