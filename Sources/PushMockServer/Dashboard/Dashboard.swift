import PushMockCore

/// The dashboard's files, embedded in the binary and handed to the gateway, which serves
/// them at `/` and `/ui/...`.
enum Dashboard {
    static let assets: [String: Response] = [
        "/": file(DashboardPage.html, "text/html; charset=utf-8"),
        "/ui/app.js": file(DashboardScript.js, "text/javascript; charset=utf-8"),
        "/ui/app.css": file(DashboardStyle.css, "text/css; charset=utf-8"),
    ]

    private static func file(_ text: String, _ type: String) -> Response {
        Response(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache")], body: Array(text.utf8))
    }
}
