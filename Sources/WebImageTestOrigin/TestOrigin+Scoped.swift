extension TestOrigin {
    /// Starts an origin, runs `body` with it, and awaits its shutdown whether `body`
    /// returns or throws, so a test never leaves a shutdown to a task no one waits for.
    @discardableResult
    public static func with<T>(
        tls: Bool = false, host: String = "127.0.0.1", port: Int = 0, isolation: isolated (any Actor)? = #isolation,
        _ body: (TestOrigin) async throws -> T
    ) async throws -> T {
        let origin = try await start(tls: tls, host: host, port: port)
        do {
            let result = try await body(origin)
            await origin.shutdown()
            return result
        } catch {
            await origin.shutdown()
            throw error
        }
    }
}
