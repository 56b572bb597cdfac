/// Runs `body`, then awaits `cleanup` whether `body` returned or threw: the one place the
/// tests' scoped helpers (an origin, a served process, a client, a fixture) make sure what
/// they started is stopped on every exit, never by a task no one waits for.
public func withCleanup<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T,
    cleanup: () async -> Void
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}

extension TestOrigin {
    /// Starts an origin, runs `body` with it, and awaits its shutdown whether `body`
    /// returns or throws.
    @discardableResult
    public static func with<T>(
        tls: Bool = false, host: String = "127.0.0.1", port: Int = 0, isolation: isolated (any Actor)? = #isolation,
        _ body: (TestOrigin) async throws -> T
    ) async throws -> T {
        let origin = try await start(tls: tls, host: host, port: port)
        return try await withCleanup { try await body(origin) } cleanup: { await origin.shutdown() }
    }
}
