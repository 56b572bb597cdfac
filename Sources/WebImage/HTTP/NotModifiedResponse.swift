/// The underlying cause of a ``WebImageCodecs/WebImageError/Code/cacheNotModified`` error: the 304
/// response, whose headers (`Cache-Control`, `Date`, `ETag`) update the stored entry.
public struct NotModifiedResponse: Error, Sendable {
    /// The 304 response.
    public var http: HTTPResponseInfo
}
