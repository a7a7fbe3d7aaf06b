/// pushmock's own site: `/healthz`, `/metrics` (Prometheus) and the dashboard, whose files are
/// served from `assets` and only to the host names pushmock is known by (docs/exposure.md).
struct SiteModule: GatewayModule {
    /// The dashboard's files by path.
    let assets: [String: Response]
    let metrics: () -> Reply

    func addRoutes(to routes: inout Routes) {
        routes.group("", GoogleFrontEndStyle.plain) { r in
            r.add("GET", "/healthz") { _, _ in .response(.json(200, "{\"status\":\"ok\"}")) }
            r.add("GET", "/metrics") { _, _ in metrics() }
        }
        let dashboard = GoogleFrontEndStyle(unavailable: GoogleFrontEnd.unavailable, exposure: .knownHosts)
        routes.group("", dashboard) { r in
            r.add("GET", "/") { req, _ in asset(req) }
            r.add("GET", "/ui/{file}") { req, _ in asset(req) }
        }
    }

    /// A dashboard file, or 404.
    private func asset(_ request: Request) -> Reply {
        .response(assets[request.path] ?? GoogleFrontEnd.notFound(request.path))
    }
}
