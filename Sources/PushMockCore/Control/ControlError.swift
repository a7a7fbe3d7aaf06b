/// A control-API failure: the Google-shaped error response to send instead.
struct ControlError: Error {
    let response: Response
}
