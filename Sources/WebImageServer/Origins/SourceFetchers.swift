import Foundation
import WebImage
import Metrics
import WebImageCodecs

/// `local://` sources as the originals stage fetches them: the file, read afresh (a
/// conditional fetch is not made: reading the file costs what checking it would).
extension LocalFileReader: ImageFetching {
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        guard case .local(let path) = try SourceLocation(url, querySeparator: querySeparator) else {
            throw .badRequest("Not a local:// source")
        }
        return .body(try await read(path), http: nil)
    }
}

/// `s3://` sources as the originals stage fetches them: one signed `GET`, conditional on
/// the stored copy's `ETag` (else its `Last-Modified`) when the stage revalidates it.
extension S3Client: ImageFetching {
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        guard case .s3(let bucket, let key, let version) = try SourceLocation(url, querySeparator: querySeparator) else {
            throw .badRequest("Not an s3:// source")
        }
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2), so one is sent.
        let etag = validators?.etag
        switch try await get(bucket: bucket, key: key, versionID: version, ifNoneMatch: etag,
                             ifModifiedSince: etag == nil ? validators?.lastModified : nil) {
        case .notModified: return .notModified(nil)
        case .object(let original, _, _): return .body(original, http: nil)
        }
    }
}

/// The proxy's http(s) sources: the downloader's fetch, its errors as the proxy answers them.
struct SourceDownload: ImageFetching {
    let downloader: ImageDownloader

    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        do {
            return try await downloader.fetch(url, validators: validators)
        } catch {
            throw ProxyError(error)
        }
    }
}

/// The gallery's built-in pictures (`example://NAME`), from memory.
extension ExampleImages: ImageFetching {
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        guard let example = image(for: url) else {
            throw ProxyError(WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404))
        }
        return .body(OriginalData(data: example.data), http: nil)
    }
}

extension SourcesPreset<ProxyError> {
    /// The proxy's preset of the pipeline: stage A over `cache` (http and S3 sources), each
    /// kind of ``SourceLocation`` fetched by its own fetcher:
    ///
    /// - http(s): the downloader (``SourceDownload``; its ``WebImage/HopPolicy`` checks the
    ///   source and every redirect hop). A cached copy its source's `Cache-Control`
    ///   (`s-maxage` first: this is a shared cache) or `Expires` says is stale (or
    ///   `no-cache`) is revalidated first, conditionally (a 304 costs no transfer and renews
    ///   it); within `stale-if-error`, a failed check (a transfer error, a 5xx) renders the
    ///   stale copy. A copy whose source sent no caching header is kept as long as the cache
    ///   keeps it;
    /// - `s3://`: ``S3Client``, cached like http, except that a cached object without a
    ///   version id is checked with `If-None-Match` before reuse (a 304 costs no transfer),
    ///   so a render after the object changed uses the new bytes; a version never changes;
    /// - `local://`: the file, read afresh each time by ``LocalFileReader``, not cached
    ///   (reading the file costs what reading a cached copy would, and a changed file is
    ///   seen at once);
    /// - the built-in examples, from memory.
    ///
    /// One fetch per source at a time: concurrent requests for a source share it, and the
    /// memory tier lets the requests that follow share its bytes too (one copy of a 3 MB
    /// photo, not one per request). Nothing is decoded here: the proxy plans the decode
    /// from the header first (``ProcessingPlan``), so no pixel exists before its memory is
    /// reserved.
    ///
    /// - Throws: (from the route) 400 for a local or S3 source the server does not enable,
    ///   or a location ``SourceLocation`` refuses.
    static func proxy(
        cache: (any PipelineStageCache<OriginalData>)?, downloader: ImageDownloader, examples: ExampleImages,
        local: LocalFileReader?, s3: S3Client?, querySeparator: String
    ) -> Self {
        let download = SourceDownload(downloader: downloader)
        return .proxy(
            cache: cache,
            route: { url throws(ProxyError) in
                switch try SourceLocation(url, querySeparator: querySeparator) {
                case .example:
                    return Source(examples, isKept: false)
                case .local:
                    guard let local else { throw .badRequest("Local sources are not enabled on this server") }
                    return Source(local, isKept: false)
                case .s3(_, _, let version):
                    guard let s3 else { throw .badRequest("S3 sources are not enabled on this server") }
                    return Source(s3, revalidation: version == nil ? .always : .never)
                case .http:
                    return Source(download, revalidation: .whenStale)
                }
            },
            failure: { ProxyError($0) }, waitFailure: ProxyError.init(waiting:), onNotModified: ImageProxy.countSourceNotModified)
    }

}

extension ImageProxy {
    /// Revalidations of a cached source answered 304, by kind of source.
    static let s3Revalidations = Counter(label: "webimage_serve_s3_not_modified_total")
    static let httpRevalidations = Counter(label: "webimage_serve_http_not_modified_total")

    /// Counts a revalidation answered 304 under its kind of source.
    @Sendable static func countSourceNotModified(_ url: URL) {
        (url.scheme == "s3" ? s3Revalidations : httpRevalidations).increment()
    }
}
