import Foundation

/// A fresh directory under the system temporary directory, removed when the value is.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Sets a file's modification time (the cache's access date) to `secondsAgo` in the past.
    static func age(_ path: String, secondsAgo: Double) throws {
        let date = Date(timeIntervalSinceNow: -secondsAgo)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// The names of the files in `directory`, hidden ones included.
    static func names(in directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }
}
