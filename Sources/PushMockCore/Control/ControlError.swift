/// A control-API failure: the Google-shaped error response to send instead.
struct ControlError: Error {
    let response: Response

    /// What the response's `error.message` says.
    var message: String {
        (try? JSONParser.parse(response.body))?["error"]?["message"]?.stringValue ?? "refused with status \(response.status)"
    }
}
