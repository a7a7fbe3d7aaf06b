import CDashboard
import PushMockCore

/// The dashboard's files (`dashboard/`, Chart.js, `docs/openapi.json`), embedded in the binary
/// by the CDashboard target and handed to the gateway, which serves them at `/`, `/ui/...`
/// and `/emulator/v1/openapi.json`.
enum Dashboard {
    static let assets: [String: Response] = {
        var assets: [String: Response] = [:]
        for i in 0..<pushmock_asset_count {
            let a = pushmock_asset_at(i).pointee
            let body = Array(UnsafeBufferPointer(start: a.bytes, count: a.size))
            assets[String(cString: a.path)] = Response(
                status: 200, headers: [("Content-Type", String(cString: a.type)), ("Cache-Control", "no-cache")], body: body)
        }
        return assets
    }()
}
