/// Times repetitions of a piece of work on a monotonic clock.
enum Sampler {
    /// Runs `body` `warmup` times unmeasured, then `iterations` times, returning the
    /// seconds each measured run took.
    static func samples(iterations: Int, warmup: Int, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        let clock = ContinuousClock()
        var result: [Double] = []
        result.reserveCapacity(iterations)
        for _ in 0..<iterations {
            result.append(seconds(try clock.measure(body)))
        }
        return result
    }

    /// ``samples(iterations:warmup:_:)`` for `async` work (the cache, loader and manager modes).
    static func samples(
        iterations: Int, warmup: Int, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
    ) async rethrows -> [Double] {
        for _ in 0..<warmup { try await body() }
        let clock = ContinuousClock()
        var result: [Double] = []
        result.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            try await body()
            result.append(seconds(clock.now - start))
        }
        return result
    }

    static func seconds(_ elapsed: Duration) -> Double {
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
