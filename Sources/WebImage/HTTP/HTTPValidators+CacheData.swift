import Foundation

/// How validators are kept as a disk entry's extended data: a small JSON object
/// (`{"etag":…,"lastModified":…,"receivedAt":…,"lifetime":…}`), readable by other tools.
/// Entries written before freshness was stored read back without it.
extension HTTPValidators {
    private struct Stored: Codable {
        var etag: String?
        var lastModified: String?
        /// Seconds since 1970.
        var receivedAt: Double?
        var lifetime: Double?
        var noCache: Bool?
        var mustRevalidate: Bool?
        var staleWhileRevalidate: Double?
        var staleIfError: Double?
    }

    /// The bytes stored with the entry.
    var cacheData: Data {
        var stored = Stored(etag: etag, lastModified: lastModified)
        if let f = freshness {
            stored.receivedAt = f.receivedAt.timeIntervalSince1970
            stored.lifetime = f.lifetime
            stored.noCache = f.requiresRevalidation ? true : nil
            stored.mustRevalidate = f.mustRevalidate ? true : nil
            stored.staleWhileRevalidate = f.staleWhileRevalidate > 0 ? f.staleWhileRevalidate : nil
            stored.staleIfError = f.staleIfError > 0 ? f.staleIfError : nil
        }
        return (try? JSONEncoder().encode(stored)) ?? Data()
    }

    /// Validators from stored bytes; `nil` when they are not ours or hold nothing.
    init?(cacheData: Data) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: cacheData) else { return nil }
        var freshness: HTTPFreshness?
        if let receivedAt = stored.receivedAt {
            freshness = HTTPFreshness(
                receivedAt: Date(timeIntervalSince1970: receivedAt), lifetime: stored.lifetime,
                requiresRevalidation: stored.noCache ?? false, mustRevalidate: stored.mustRevalidate ?? false,
                staleWhileRevalidate: stored.staleWhileRevalidate ?? 0, staleIfError: stored.staleIfError ?? 0)
        }
        guard stored.etag != nil || stored.lastModified != nil || freshness != nil else { return nil }
        self.init(etag: stored.etag, lastModified: stored.lastModified, freshness: freshness)
    }
}
