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
