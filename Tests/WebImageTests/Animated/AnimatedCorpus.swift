import Foundation
@testable import WebImageCodecs

/// The animated files of the corpus (GIF, APNG, WebP, AVIF with two or more frames), and a
/// seeded generator for reproducible random frame orders.
enum AnimatedCorpus {
    static let formats: Set<String> = ["gif", "apng", "webp", "avif"]

    /// Every animated corpus file the eager decoders accept.
    static var entries: [Corpus.Entry] {
        Corpus.entries.filter { formats.contains($0.format) && ($0.frames ?? 0) > 1 && ["ok", "lenient"].contains($0.expect) }
    }

    /// A small deterministic generator (SplitMix64), so a failing order can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A random order of `count` frames; for long animations a random subset of `limit`.
    static func randomOrder(count: Int, limit: Int = 48, seed: UInt64) -> [Int] {
        var generator = SeededGenerator(state: seed)
        let order = Array(0..<count).shuffled(using: &generator)
        return Array(order.prefix(limit))
    }
}
