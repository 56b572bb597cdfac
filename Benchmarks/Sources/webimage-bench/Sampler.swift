#if canImport(Glibc)
import Glibc
#endif

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
        try await samplesAndCores(iterations: iterations, warmup: warmup, body).samples
    }

    /// ``samples(iterations:warmup:isolation:_:)``, plus the cores the process kept busy
    /// while the measured iterations ran: its user + system CPU (every thread) over their
    /// wall time, so a row can print each side's cores busy. `settle` runs after every
    /// iteration (warm-up too), untimed and outside the CPU count: work the iteration left
    /// running in the background (a cache's disk writes) ends there, so the next iteration
    /// starts with none of it and each timed iteration does the same work.
    static func samplesAndCores(
        iterations: Int, warmup: Int, isolation: isolated (any Actor)? = #isolation,
        settle: () async -> Void = {}, _ body: () async throws -> Void
    ) async rethrows -> (samples: [Double], coresBusy: Double?) {
        for _ in 0..<warmup {
            try await body()
            await settle()
        }
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        var cpu: Double? = 0
        for _ in 0..<iterations {
            let cpuBefore = cpuSeconds()
            let start = clock.now
            try await body()
            samples.append(seconds(clock.now - start))
            if let before = cpuBefore, let after = cpuSeconds(), let sum = cpu { cpu = sum + (after - before) } else { cpu = nil }
            await settle()
        }
        let wall = samples.reduce(0, +)
        guard let busy = cpu, wall > 0 else { return (samples, nil) }
        return (samples, busy / wall)
    }

    /// The process's user + system CPU time so far (every thread), in seconds.
    static func cpuSeconds() -> Double? {
        var now = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return nil }
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }

    static func seconds(_ elapsed: Duration) -> Double {
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
