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
            let elapsed = try clock.measure(body)
            result.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        return result
    }
}
