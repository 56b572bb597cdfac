import Foundation
import Metrics
import WebImage
import WebImageCodecs

/// One `local://` file as stage A fetches it: read afresh (a conditional fetch is not
/// made: reading the file costs what checking it would). `path` is the location the
/// proxy preset's route parsed, so the URL is not parsed again.
struct LocalFileSource: ImageFetching {
    let reader: LocalFileReader
    let path: String

    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        .body(try await reader.read(path), http: nil)
    }
}

/// One `s3://` object as stage A fetches it: one signed `GET`, conditional on the stored
/// copy's `ETag` (else its `Last-Modified`) when the stage revalidates it. The location
/// is the one the proxy preset's route parsed.
struct S3ObjectSource: ImageFetching {
    let client: S3Client
    let bucket: String
    let key: String
    let versionID: String?

    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2), so one is sent.
        let etag = validators?.etag
        switch try await client.get(bucket: bucket, key: key, versionID: versionID, ifNoneMatch: etag,
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
    /// - `s3://`: ``S3Client`` (``S3ObjectSource``), cached like http, except that a cached object without a
    ///   version id is checked with `If-None-Match` before reuse (a 304 costs no transfer),
    ///   so a render after the object changed uses the new bytes; a version never changes;
    /// - `local://`: the file, read afresh each time by ``LocalFileReader`` (``LocalFileSource``), not cached
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
    /// The route parses each source's location once (``SourceLocation``) and hands its
    /// fetcher what it parsed.
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
                case .local(let path):
                    guard let local else { throw .badRequest("Local sources are not enabled on this server") }
                    return Source(LocalFileSource(reader: local, path: path), isKept: false)
                case .s3(let bucket, let key, let version):
                    guard let s3 else { throw .badRequest("S3 sources are not enabled on this server") }
                    return Source(S3ObjectSource(client: s3, bucket: bucket, key: key, versionID: version),
                                  revalidation: version == nil ? .always : .never)
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
