/// How the control API resolves `{project}` and `{id}` in its paths.
extension ProjectDirectory {
    /// Resolves `{project}`, or fails with 404.
    func named(_ params: PathParameters) throws(ControlError) -> Project {
        let id = try Control.path(params, .project)
        guard let p = project(id) else {
            if Configuration.isProjectID(id), isFull {
                throw ControlError(
                    response: .googleError(
                        429, "RESOURCE_EXHAUSTED",
                        "pushmock holds \(count) projects, the most --max-projects allows; delete one (DELETE /emulator/v1/projects/{project}) or start it with a larger --max-projects."
                    ))
            }
            throw Control.notFound("Project '\(id)' is not a valid project id.")
        }
        return p
    }

    /// Resolves `{project}` and `{id}`, or fails with 404.
    func device(_ params: PathParameters) throws(ControlError) -> (Project, Device) {
        let project = try named(params)
        let id = try Control.path(params, .id)
        guard let device = project.devices[id] else { throw Control.notFound("Device \(id) not found in project \(project.id).") }
        return (project, device)
    }
}
