import Foundation

/// The validators of a stored response, sent back to make a conditional request.
///
/// The manager stores them next to a cached image and passes them in
/// ``WebImageContext/validators`` with ``WebImageOptions/useHTTPCache``; the
/// downloader then sends `If-None-Match` / `If-Modified-Since`, and a 304 answer fails
/// with ``WebImageCodecs/WebImageError/Code/cacheNotModified`` so the caller keeps its copy.
public struct HTTPValidators: Sendable, Hashable {
    /// The `ETag` header, verbatim (quotes and `W/` included).
    public var etag: String?
    /// The `Last-Modified` header, verbatim.
    public var lastModified: String?
    /// The response's freshness (`Cache-Control`, `Expires`, `Age`), stored with the entry
    /// for ``HTTPCachePolicy/respectHeaders``; `nil` when it sent no caching header. The
    /// manager's business, so not public: a caller validates with the two headers.
    package var freshness: HTTPFreshness?

    /// Creates validators; either may be `nil`.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.init(etag: etag, lastModified: lastModified, freshness: nil)
    }

    package init(etag: String?, lastModified: String?, freshness: HTTPFreshness?) {
        self.etag = etag
        self.lastModified = lastModified
        self.freshness = freshness
    }

    /// Whether there is nothing to validate with (and no freshness to keep).
    public var isEmpty: Bool { etag == nil && lastModified == nil && freshness == nil }

    /// Whether a conditional request can be made with these.
    public var canValidate: Bool { etag != nil || lastModified != nil }
}

extension HTTPValidators {
    /// These stored validators as a 304 (`http`) renews them (RFC 9111 §4.3.4): the
    /// validators it sent replace the stored ones, and its freshness (as a `shared` cache
    /// reads it, or a private one) replaces theirs; a 304 that sent no caching header
    /// restarts the stored lifetime from `now`.
    package func renewed(by http: HTTPResponseInfo?, at now: Date = Date(), shared: Bool = false) -> HTTPValidators {
        let new = http?.validators(shared: shared)
        var renewed = self
        if let etag = new?.etag { renewed.etag = etag }
        if let lastModified = new?.lastModified { renewed.lastModified = lastModified }
        if let freshness = new?.freshness {
            renewed.freshness = freshness
        } else if var old = renewed.freshness {
            old.receivedAt = now
            renewed.freshness = old
        }
        return renewed
    }
}

// MARK: - Validators as cache data

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
