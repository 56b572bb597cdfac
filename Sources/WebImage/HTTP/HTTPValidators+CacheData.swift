import Foundation

/// How a response's metadata is kept as a disk entry's extended data: one small JSON
/// object, readable by other tools, the same for the library's entries and the proxy's
/// sources (``OriginalData``):
/// `{"etag":…,"lastModified":…,"receivedAt":…,"lifetime":…,"cacheControl":…,"expires":…}`.
/// Every field is optional; a reader takes the fields it knows. Entries written before
/// freshness was stored read back without it.
struct StoredHTTPMetadata: Codable {
    var etag: String?
    var lastModified: String?
    /// Seconds since 1970.
    var receivedAt: Double?
    var lifetime: Double?
    var noCache: Bool?
    var mustRevalidate: Bool?
    var staleWhileRevalidate: Double?
    var staleIfError: Double?
    /// The source's `Cache-Control` and `Expires`, verbatim (kept for the proxy's
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
    var cacheControl: String?
    var expires: String?

    init(_ validators: HTTPValidators, cacheControl: String? = nil, expires: String? = nil) {
        etag = validators.etag
        lastModified = validators.lastModified
        if let f = validators.freshness {
            receivedAt = f.receivedAt.timeIntervalSince1970
            lifetime = f.lifetime
            noCache = f.requiresRevalidation ? true : nil
            mustRevalidate = f.mustRevalidate ? true : nil
            staleWhileRevalidate = f.staleWhileRevalidate > 0 ? f.staleWhileRevalidate : nil
            staleIfError = f.staleIfError > 0 ? f.staleIfError : nil
        }
        self.cacheControl = cacheControl
        self.expires = expires
    }

    /// The metadata in `data`; `nil` when it is not ours.
    init?(_ data: Data) {
        guard let stored = try? JSONDecoder().decode(Self.self, from: data) else { return nil }
        self = stored
    }

    var encoded: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    var validators: HTTPValidators {
        var freshness: HTTPFreshness?
        if let receivedAt {
            freshness = HTTPFreshness(
                receivedAt: Date(timeIntervalSince1970: receivedAt), lifetime: lifetime,
                requiresRevalidation: noCache ?? false, mustRevalidate: mustRevalidate ?? false,
                staleWhileRevalidate: staleWhileRevalidate ?? 0, staleIfError: staleIfError ?? 0)
        }
        return HTTPValidators(etag: etag, lastModified: lastModified, freshness: freshness)
    }
}

extension HTTPValidators {
    /// The bytes stored with the entry (``StoredHTTPMetadata``).
    var cacheData: Data { StoredHTTPMetadata(self).encoded }

    /// Validators from stored bytes; `nil` when they are not ours or hold nothing.
    init?(cacheData: Data) {
        guard let validators = StoredHTTPMetadata(cacheData)?.validators, !validators.isEmpty else { return nil }
        self = validators
    }
}
