/// The control API's names for device state, shared by registration and PATCH.
enum DeviceStateFields {
    static let names: Set<String> = [
        "app_state", "online", "notifications", "low_power_mode", "presentation_options", "auto_init_enabled",
    ]

    /// Applies the state members present in `obj`; a wrong type or value is INVALID_ARGUMENT.
    static func apply(_ obj: JSONObject, to state: inout DeviceState) throws(ControlError) {
        if let v = try Control.string(obj, "app_state") {
            guard let s = AppState(rawValue: v) else {
                throw Control.invalid(
                    "Invalid value at 'app_state': \"\(v)\" is not foreground, background, not_running or terminated.")
            }
            state.appState = s
        }
        if let v = try Control.string(obj, "notifications") {
            guard let p = NotificationPermission(rawValue: v) else {
                throw Control.invalid(
                    "Invalid value at 'notifications': \"\(v)\" is not authorized, denied, provisional or not_determined.")
            }
            state.notifications = p
        }
        if let b = try bool(obj, "online") { state.online = b }
        if let b = try bool(obj, "low_power_mode") { state.lowPowerMode = b }
        if let b = try bool(obj, "auto_init_enabled") { state.autoInitEnabled = b }
        if let v = obj["presentation_options"], v != .null {
            guard let items = v.arrayValue else {
                throw Control.invalid("Invalid value at 'presentation_options': expected a list of banner, list, sound, badge.")
            }
            var options: [PresentationOption] = []
            for item in items {
                guard let o = item.stringValue.flatMap(PresentationOption.init) else {
                    throw Control.invalid(
                        "Invalid value at 'presentation_options': \(JSONWriter.quotedJSON(item)) is not banner, list, sound or badge."
                    )
                }
                if !options.contains(o) { options.append(o) }
            }
            state.presentationOptions = options
        }
    }

    /// What a platform cannot be: a browser has no force-stop, provisional permission or Low
    /// Power Mode for a web app (docs/device-model.md, "Web").
    static func check(_ state: DeviceState, for platform: Platform) throws(ControlError) {
        guard platform == .web else { return }
        if state.appState == .terminated {
            throw Control.invalid(
                "A web app cannot be force-stopped: use app_state foreground (page visible), background or not_running, and online false for a closed browser."
            )
        }
        if state.notifications == .provisional {
            throw Control.invalid("Browsers have no provisional permission: use authorized, denied or not_determined.")
        }
        if state.lowPowerMode { throw Control.invalid("'low_power_mode' applies to phones, not web devices.") }
    }

    static func bool(_ obj: JSONObject, _ name: String) throws(ControlError) -> Bool? {
        guard let v = obj[name], v != .null else { return nil }
        guard let b = v.boolValue else {
            throw Control.invalid("Invalid value at '\(name)' (TYPE_BOOL), \(JSONWriter.quotedJSON(v))")
        }
        return b
    }
}
