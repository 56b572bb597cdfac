import Foundation

/// One shard's `NNNNN_stats.json`, with img2dataset's fields in its order: `count`,
/// `successes`, `failed_to_download`, `failed_to_resize`, `duration`, `start_time`,
/// `end_time` (Unix seconds) and `status_dict` (`"success"` and each error message, with
/// how often it happened, in order of first appearance by key).
struct ShardStats: Sendable {
    var count = 0
    var successes = 0
    var failedToDownload = 0
    var failedToResize = 0
    var startTime: Double = 0
    var endTime: Double = 0
    private(set) var statusDict: [(String, Int)] = []
    private var statusIndex: [String: Int] = [:]

    /// Counts one sample: `nil` for a success.
    mutating func record(_ failure: SampleFailure?) {
        count += 1
        let key: String
        switch failure {
        case nil:
            successes += 1
            key = "success"
        case .download(let message)?:
            failedToDownload += 1
            key = message
        case .resize(let message)?:
            failedToResize += 1
            key = message
        }
        if let i = statusIndex[key] {
            statusDict[i].1 += 1
        } else {
            statusIndex[key] = statusDict.count
            statusDict.append((key, 1))
        }
    }

    /// Python's `json.dump(stats, indent=4)`.
    var json: String {
        JSONValue.object([
            ("count", .int(count)), ("successes", .int(successes)),
            ("failed_to_download", .int(failedToDownload)), ("failed_to_resize", .int(failedToResize)),
            ("duration", .double(endTime - startTime)), ("start_time", .double(startTime)), ("end_time", .double(endTime)),
            ("status_dict", .object(statusDict.map { ($0.0, .int($0.1)) })),
        ]).pretty()
    }
}
