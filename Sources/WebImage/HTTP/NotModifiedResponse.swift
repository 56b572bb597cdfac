/// The underlying cause of a ``WebImageCodecs/WebImageError/Code/cacheNotModified`` error: the 304
/// response, whose headers (`Cache-Control`, `Date`, `ETag`) update the stored entry.
package struct NotModifiedResponse: Error, Sendable {
    /// The 304 response.
    package var http: HTTPResponseInfo
}
