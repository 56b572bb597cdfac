/// Shard and sample names as img2dataset gives them (its `compute_key`): with N samples
/// per shard and `k = ceil(log10(N))`, sample `i` of shard `s` is the number
/// `s · 10^k + i` written with at least `k + 5` digits, and shard `s` is `s` with at least
/// 5 digits. N = 10,000 gives `000010005` for shard 1, sample 5; N = 1,000 gives
/// `00001005`. Wider numbers are written in full, never cut. The shard number's least width
/// is img2dataset's `oom_shard_count` (5 unless given).
struct ShardNaming: Sendable {
    /// img2dataset's default `oom_shard_count`.
    static let defaultShardDigits = 5

    let samplesPerShard: Int
    /// The shard number's least width (`oom_shard_count`).
    let shardDigits: Int
    /// `ceil(log10(N))`, computed in integers: the least `k` with `10^k ≥ N`.
    let sampleDigits: Int
    private let multiplier: Int

    init(samplesPerShard: Int, shardDigits: Int = Self.defaultShardDigits) {
        self.samplesPerShard = samplesPerShard
        self.shardDigits = shardDigits
        var k = 0
        var power = 1
        while power < samplesPerShard {
            power *= 10
            k += 1
        }
        sampleDigits = k
        multiplier = power
    }

    /// The key of sample `index` (0-based within its shard) of shard `shard`.
    func key(shard: Int, index: Int) -> String {
        let (product, overflow) = shard.multipliedReportingOverflow(by: multiplier)
        let number = overflow ? String(shard) + Self.pad(index, sampleDigits) : String(product + index)
        return Self.pad(number, sampleDigits + shardDigits)
    }

    /// `00042` for shard 42.
    func shardName(_ shard: Int) -> String { Self.pad(String(shard), shardDigits) }

    private static func pad(_ n: Int, _ width: Int) -> String { pad(String(n), width) }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
