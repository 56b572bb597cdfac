/// A failure of the deploy tests' own setup, with what was found.
struct DeployTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
