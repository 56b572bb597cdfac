/// The validators of a stored response, sent back to make a conditional request.
///
/// The manager stores them next to a cached image and passes them in
/// ``ImageLoaderContext/validators`` with ``DownloaderOptions/useHTTPCache``; the
/// downloader then sends `If-None-Match` / `If-Modified-Since`, and a 304 answer fails
/// with ``WebImageError/Code/cacheNotModified`` so the caller keeps its copy.
public struct HTTPValidators: Sendable, Hashable {
    /// The `ETag` header, verbatim (quotes and `W/` included).
    public var etag: String?
    /// The `Last-Modified` header, verbatim.
    public var lastModified: String?

    /// Creates validators; either may be `nil`.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether there is nothing to validate with.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
