import Foundation
import Testing

@testable import PushMockCore

/// docs/openapi.json describes the control API; the server embeds it and serves it at
/// `/emulator/v1/openapi.json`. These tests hold it to the route table.
@Suite("The control API's OpenAPI description")
struct OpenAPITests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")

    func document() throws -> [String: Any] {
        let data = try Data(contentsOf: Self.file)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// "METHOD /path" of every operation the document describes.
    func described(_ doc: [String: Any]) -> Set<String> {
        let paths = doc["paths"] as? [String: [String: Any]] ?? [:]
        return Set(paths.flatMap { path, methods in methods.keys.map { "\($0.uppercased()) \(path)" } })
    }

    @Test("every control route is described, and every description is a route")
    func matchesRoutes() throws {
        let routes = Set(
            try Gateway(configuration: Configuration()).routeNames.filter {
                $0.split(separator: " ")[1].hasPrefix("/emulator/v1/")
            })
        let doc = try document()
        let described = described(doc)
        #expect(routes.subtracting(described).sorted() == [], "routes without a description in docs/openapi.json")
        #expect(described.subtracting(routes).sorted() == [], "descriptions of routes that do not exist")
        #expect(routes.count > 40)
    }

    @Test("each operation has a summary, a description, its path parameters and an answer")
    func operationsComplete() throws {
        let doc = try document()
        #expect((doc["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = doc["paths"] as? [String: [String: [String: Any]]] ?? [:]
        for (path, methods) in paths {
            // `{project}`, `{id}`, ... as the path names them.
            let namedInPath = Set(path.split(separator: "{").dropFirst().map { String($0.prefix { $0 != "}" }) })
            for (method, op) in methods {
                let name = "\(method.uppercased()) \(path)"
                #expect((op["summary"] as? String)?.isEmpty == false, "\(name) has no summary")
                #expect(((op["description"] as? String)?.count ?? 0) > 20, "\(name) has no description")
                #expect((op["responses"] as? [String: Any])?.isEmpty == false, "\(name) has no responses")
                let parameters = op["parameters"] as? [[String: Any]] ?? []
                let inPath = Set(parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                #expect(inPath == namedInPath, "\(name) describes path parameters \(inPath), its path has \(namedInPath)")
                for p in parameters { #expect((p["description"] as? String)?.isEmpty == false, "\(name): \(p["name"] ?? "?")") }
            }
        }
    }
}
