/// How the control API resolves `{project}` and `{id}` in its paths.
extension ProjectDirectory {
    /// Resolves `{project}`, or fails with 404.
    func named(_ params: [String: String]) throws(ControlError) -> Project {
        guard let p = project(params["project"]!) else {
            throw Control.notFound("Project '\(params["project"]!)' is not a valid project id.")
        }
        return p
    }

    /// Resolves `{project}` and `{id}`, or fails with 404.
    func device(_ params: [String: String]) throws(ControlError) -> (Project, Device) {
        let project = try named(params)
        guard let device = project.devices[params["id"]!] else {
            throw Control.notFound("Device \(params["id"]!) not found in project \(project.id).")
        }
        return (project, device)
    }
}
