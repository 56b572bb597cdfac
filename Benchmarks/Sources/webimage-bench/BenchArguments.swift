import Foundation

/// The command line of `webimage-bench`: `MODE [--iterations N] [--warmup N] [--size N]
/// [--concurrency N] [--count N] [--threads N] [--ops N] INPUT...`.
///
/// Parsed by hand so the tool needs nothing beyond the library; `compare` is its only caller.
struct BenchArguments {
    var mode: String
    var inputs: [String] = []
    /// Measured repetitions of the whole work; each yields one sample.
    var iterations = 3
    /// Unmeasured repetitions first, so caches and the allocator are warm.
    var warmup = 1
    /// Thumbnail box side in pixels.
    var size = 400
    var concurrency = 16
    var count = 100
    var threads = 1
    /// Operations per sample for the dictionary and read loops.
    var ops = 1_000_000

    static let usage = """
        usage: webimage-bench MODE [--iterations N] [--warmup N] [--size N] [--concurrency N]
                                   [--count N] [--threads N] [--ops N] INPUT...
        modes: \(BenchMode.allCases.map(\.rawValue).joined(separator: " "))
        Prints one JSON object: {"mode","ok","samples" (seconds per iteration),"peakRSSBytes",...}
        """

    init(_ arguments: [String]) throws(UsageError) {
        guard let first = arguments.first else { throw UsageError(Self.usage) }
        mode = first
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else {
                inputs.append(word)
                continue
            }
            guard let text = rest.popFirst(), let value = Int(text), value >= 0 else {
                throw UsageError("\(word) needs a non-negative integer\n\(Self.usage)")
            }
            switch word {
            case "--iterations": iterations = max(1, value)
            case "--warmup": warmup = value
            case "--size": size = max(1, value)
            case "--concurrency": concurrency = max(1, value)
            case "--count": count = max(1, value)
            case "--threads": threads = max(1, value)
            case "--ops": ops = max(1, value)
            default: throw UsageError("unknown option \(word)\n\(Self.usage)")
            }
        }
    }
}

/// Bad usage: printed to stderr, exit status 2.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
