/// What Google's client-side REST APIs (Firebase Installations, FCM registrations) check before
/// anything else, in Google's error shape (docs/reference/fcm-clients.md §1): the API key and a
/// JSON body, which the SDKs send under several content types (aiohttp's `text/plain`, Android's
/// gzip).
enum GoogleAPIRequest {
    /// A refusal, already Google's answer.
    struct Refused: Error {
        let response: Response
    }

    /// The API key, in `x-goog-api-key` or the `key` query parameter. Google's keys are `AIza`
    /// and 35 more URL-safe characters; pushmock cannot know which keys a real project issued,
    /// so any key of that shape is taken (docs/fcm-clients.md, "API keys").
    static func checkAPIKey(_ request: Request, service: String) throws(Refused) {
        guard let key = request.header("x-goog-api-key") ?? request.queryValue("key") else {
            throw Refused(
                response: .googleError(
                    403, "PERMISSION_DENIED",
                    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
                ))
        }
        guard isAPIKey(key) else {
            var info = JSONWriter()
            info.object { w in
                w.member("@type", "type.googleapis.com/google.rpc.ErrorInfo")
                w.member("reason", "API_KEY_INVALID")
                w.member("domain", "googleapis.com")
                w.key("metadata")
                w.object { $0.member("service", service) }
            }
            throw Refused(
                response: .googleError(
                    400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", details: [info.text]))
        }
    }

    static func isAPIKey(_ key: String) -> Bool {
        key.utf8.count == 39 && key.hasPrefix("AIza")
            && key.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F
            }
    }

    /// The body read as a message of `type` by the proto3 JSON mapping, as Google's front end
    /// reads it (docs/reference/google-json.md): names in snake_case, and every unknown name
    /// or wrong value refused at once, listed in a `BadRequest`.
    static func message(_ request: Request, inflate: (([UInt8]) -> [UInt8]?)?, as type: ProtoType) throws(Refused)
        -> JSONObject
    {
        let (read, violations) = ProtoJSON.read(.object(try object(request, inflate: inflate)), as: type)
        guard violations.isEmpty else {
            throw Refused(
                response: .googleError(
                    400, "INVALID_ARGUMENT", violations.map(\.description).joined(separator: "\n"),
                    details: [V1Error.badRequest(violations)]))
        }
        return read.objectValue ?? JSONObject()
    }

    /// The body as a JSON object, whatever its declared type; gzip-coded when it says so.
    static func object(_ request: Request, inflate: (([UInt8]) -> [UInt8]?)?) throws(Refused) -> JSONObject {
        var body = request.body
        if let coding = request.header("content-encoding")?.lowercased(), coding != "identity" {
            guard coding == "gzip", let inflated = inflate?(body) else {
                throw invalid("Invalid JSON payload received. Unexpected token.")
            }
            body = inflated
        }
        if body.isEmpty { return JSONObject() }
        let value: JSONValue
        do { value = try JSONParser.parse(body) } catch {
            let why = LegacyRequest.parseErrorText(error, body).dropFirst("JSON_PARSING_ERROR: ".count)
            throw invalid("Invalid JSON payload received. \(String(why).trimming("\n"))")
        }
        guard let obj = value.objectValue else {
            throw invalid("Invalid JSON payload received. Unknown name \"\": Root element must be a message.")
        }
        return obj
    }

    static func invalid(_ message: String) -> Refused { Refused(response: .googleError(400, "INVALID_ARGUMENT", message)) }

    /// Runs a handler; an answer to a page's request (one with `Origin`) carries Google's CORS
    /// headers, as the JS SDK's `fetch` from any origin needs.
    static func run(_ request: Request, _ body: () throws(Refused) -> Response) -> Reply {
        var response: Response
        do { response = try body() } catch { response = error.response }
        if let origin = request.header("origin") {
            response.headers += [("Access-Control-Allow-Origin", origin), ("Vary", "Origin, X-Origin, Referer")]
        }
        return .response(response)
    }

    /// A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`): every method the API
    /// has, the headers asked for, cached an hour, as Google's front end answers it.
    static func preflight(_ request: Request) -> Reply {
        var headers: [(name: String, value: String)] = [
            ("Access-Control-Allow-Origin", request.header("origin") ?? "*"),
            ("Access-Control-Allow-Methods", "DELETE,GET,HEAD,PATCH,POST,PUT"), ("Access-Control-Max-Age", "3600"),
            ("Vary", "Origin, X-Origin, Referer"),
        ]
        if let asked = request.header("access-control-request-headers") {
            headers.append(("Access-Control-Allow-Headers", asked))
        }
        return .response(Response(status: 200, headers: headers, body: []))
    }
}
