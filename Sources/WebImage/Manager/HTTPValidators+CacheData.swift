import Foundation

/// How validators are kept as a disk entry's extended data: a small JSON object
/// (`{"etag":…,"lastModified":…}`), readable by other tools.
extension HTTPValidators {
    private struct Stored: Codable {
        var etag: String?
        var lastModified: String?
    }

    /// The bytes stored with the entry.
    var cacheData: Data {
        (try? JSONEncoder().encode(Stored(etag: etag, lastModified: lastModified))) ?? Data()
    }

    /// Validators from stored bytes; `nil` when they are not ours or hold nothing.
    init?(cacheData: Data) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: cacheData),
              stored.etag != nil || stored.lastModified != nil else { return nil }
        self.init(etag: stored.etag, lastModified: stored.lastModified)
    }
}
