/// The response an error is about, as its underlying cause: a 304
/// (``WebImageCodecs/WebImageError/Code/cacheNotModified``), whose headers (`Cache-Control`,
/// `Date`, `ETag`) update the stored entry, or a status the downloader's config refused
/// (``WebImageCodecs/WebImageError/Code/invalidDownloadStatusCode``), which its fetch hands
/// over with its headers (``FetchOutcome/status(_:)``).
package struct ResponseCause: Error, Sendable {
    /// The response.
    package var http: HTTPResponseInfo
}
