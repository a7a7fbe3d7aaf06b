/// The control API for failure injection: `GET`, `PUT` and `DELETE .../chaos`
/// (docs/chaos.md).
struct ControlChaos {
    let directory: ProjectDirectory
    let chaos: Chaos

    /// `GET /emulator/v1/chaos/surfaces`: each surface, what it covers and the errors it can
    /// inject (the first is the default), so a client lists them without knowing them.
    func surfaces() -> Reply {
        var w = JSONWriter()
        w.object { w in
            w.array("surfaces") { w in
                for s in ChaosSurface.allCases {
                    w.object { w in
                        w.member("name", s.rawValue)
                        w.member("label", s.label)
                        w.array("errors", strings: s.errors)
                        w.array("per_recipient_errors", strings: s.errors.filter(s.perRecipientErrors.contains))
                    }
                }
            }
        }
        return .response(.json(200, w))
    }

    /// `GET /emulator/v1/projects/{p}/chaos`: every surface's settings.
    func get(_ params: PathParameters) throws(ControlError) -> Reply {
        .response(.json(200, chaosJSON(try directory.named(params))))
    }

    /// `PUT .../chaos`: replaces the project's settings (surfaces left out get none); a
    /// `seed` restarts the chaos generator from it.
    func put(_ request: Request, _ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        var body = try Control.body(request, allowed: Set(ChaosSurface.allCases.map(\.rawValue) + ["seed"]))
        if let seed = body["seed"] {
            guard let n = seed.numberValue?.text, let value = UInt64(n) else {
                throw Control.invalid("Field 'seed' must be a whole number from 0 to 18446744073709551615.")
            }
            chaos.reseed(value)
            body.entries.removeAll { $0.key == "seed" }
        }
        do {
            project.chaos = try ChaosSettings.parse(json: body)
        } catch {
            throw Control.invalid(error.message)
        }
        return .response(.json(200, chaosJSON(project)))
    }

    /// `DELETE .../chaos`: no failure injection for the project.
    func delete(_ params: PathParameters) throws(ControlError) -> Reply {
        let project = try directory.named(params)
        project.chaos = ChaosSettings()
        return .response(.json(200, chaosJSON(project)))
    }

    private func chaosJSON(_ project: Project) -> JSONWriter {
        var w = JSONWriter()
        project.chaos.write(&w)
        return w
    }
}
