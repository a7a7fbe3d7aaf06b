/// Helpers for the control API's JSON bodies and Google-shaped errors.
enum Control {
    static func invalid(_ message: String) -> ControlError {
        ControlError(response: .googleError(400, "INVALID_ARGUMENT", message))
    }
    static func notFound(_ message: String) -> ControlError { ControlError(response: .googleError(404, "NOT_FOUND", message)) }
    static func failedPrecondition(_ message: String) -> ControlError {
        ControlError(response: .googleError(400, "FAILED_PRECONDITION", message))
    }
    static func permissionDenied(_ message: String) -> ControlError {
        ControlError(response: .googleError(403, "PERMISSION_DENIED", message))
    }
    static func conflict(_ message: String) -> ControlError {
        ControlError(response: .googleError(409, "ALREADY_EXISTS", message))
    }

    /// A path parameter the route binds; one it does not is a not-found.
    static func path(_ params: PathParameters, _ key: PathKey) throws(ControlError) -> String {
        guard let value = params[key] else { throw notFound("The path names no \(key.name).") }
        return value
    }

    /// Runs `body`, answering a registration refused as the control API does.
    static func mapped<T>(_ body: () throws(RegistrationError) -> T) throws(ControlError) -> T {
        do { return try body() } catch {
            switch error.kind {
            case .invalid: throw invalid(error.message)
            case .conflict: throw conflict(error.message)
            case .failedPrecondition: throw failedPrecondition(error.message)
            }
        }
    }

    /// Runs a handler body that may fail with a control error.
    static func run(_ body: () throws(ControlError) -> Reply) -> Reply {
        do { return try body() } catch { return .response(error.response) }
    }

    /// The body as a JSON object whose keys are all in `allowed`; an empty body is `{}`.
    static func body(_ request: Request, allowed: Set<String>) throws(ControlError) -> JSONObject {
        if request.body.isEmpty { return JSONObject() }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            let why = LegacyRequest.parseErrorText(error, request.body).dropFirst("JSON_PARSING_ERROR: ".count)
            throw invalid("Invalid JSON payload received. \(String(why).trimming("\n"))")
        }
        guard let obj = value.objectValue else {
            throw invalid("Invalid JSON payload received. Expected an object, got \(value.typeName).")
        }
        try onlyKnown(obj, allowed: allowed)
        return obj
    }

    /// Refuses a body with a member not in `allowed`, as Google's APIs do.
    static func onlyKnown(_ obj: JSONObject, allowed: Set<String>) throws(ControlError) {
        if let unknown = obj.keys.first(where: { !allowed.contains($0) }) {
            throw invalid("Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
    }

    /// A string member, nil when absent; an error when present with another type.
    static func string(_ obj: JSONObject, _ name: String) throws(ControlError) -> String? {
        guard let v = obj[name], v != .null else { return nil }
        guard let s = v.stringValue else {
            throw invalid("Invalid value at '\(name)' (TYPE_STRING), \(JSONWriter.quotedJSON(v))")
        }
        guard s.utf8.count <= DeviceFields.maxString else {
            throw invalid("Invalid value at '\(name)': longer than \(DeviceFields.maxString) bytes.")
        }
        return s
    }

    /// A boolean member, nil when absent; refused when present as another type.
    static func bool(_ obj: JSONObject, _ name: String) throws(ControlError) -> Bool? {
        guard let v = obj[name], v != .null else { return nil }
        guard let b = v.boolValue else { throw invalid("Invalid value at '\(name)' (TYPE_BOOL), \(JSONWriter.quotedJSON(v))") }
        return b
    }
}
