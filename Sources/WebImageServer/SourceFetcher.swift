import Foundation
import Metrics
import WebImage
import WebImageCodecs

/// Gets a source's encoded bytes, by its ``SourceLocation``, through the pipeline's
/// originals stage (``WebImage/OriginalStage``) with the fetcher of its kind:
///
/// - the built-in examples, from memory;
/// - http(s): the cached stage (a bounded memory tier, else the disk cache), else the
///   downloader (``SourceDownload``; its ``WebImage/HopPolicy`` checks the source and every
///   redirect hop). A cached copy its source's `Cache-Control` (`s-maxage` first: this is
///   a shared cache) or `Expires` says is stale (or `no-cache`) is revalidated first, conditionally (a 304 costs no transfer and renews
///   it); within `stale-if-error`, a failed check (a transfer error, a 5xx) renders the
///   stale copy. A copy whose source sent no caching header is kept as long as the cache
///   keeps it;
/// - `local://`: the file, read afresh each time by ``LocalFileReader`` through a stage
///   that caches nothing (reading the file costs what reading a cached copy would, and a
///   changed file is seen at once);
/// - `s3://`: ``S3Client``, cached like http, except that a cached object without a
///   version id is revalidated by the stage with `If-None-Match` (a 304 costs no
///   transfer), so a render after the object changed uses the new bytes.
///
/// One fetch per source at a time: concurrent requests for a source share it, and the
/// memory cache lets the requests that follow share its bytes too (one copy of a 3 MB
/// photo, not one per request).
///
/// Runs on the calling task; disk and file reads on I/O pools, transfers on
/// AsyncHTTPClient's event loops. Nothing is decoded here: the proxy plans the decode
/// from the header first (``ProcessingPlan``), so no pixel exists before its memory is reserved.
final class SourceFetcher: Sendable {
    let download: SourceDownload
    let examples: ExampleImages
    /// The cached sources (http, S3): a bounded memory tier in front of the disk cache;
    /// `nil` without caching (`--no-cache`).
    let cache: TieredCache<OriginalData>?
    /// `nil` unless a local root is set.
    let local: LocalFileReader?
    /// `nil` unless S3 sources are enabled.
    let s3: S3Client?
    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`.
    let querySeparator: String
    /// The originals stage for http and S3: the cache, else one fetch per source, run on
    /// the task of the render that asked first (no task of its own), then cached.
    let originals: OriginalStage<ProxyError>
    /// `local://` sources: one read per file at a time, nothing cached.
    let files = OriginalStage<ProxyError>(cache: nil, failure: { ProxyError($0) }, waitFailure: ProxyError.init(waiting:))
    /// Revalidations of a cached source answered 304, by kind of source.
    static let s3Revalidations = Counter(label: "webimage_serve_s3_not_modified_total")
    static let httpRevalidations = Counter(label: "webimage_serve_http_not_modified_total")

    /// - Parameter tracing: the cache's lookups are spans (``ProxyTracing``).
    init(downloader: ImageDownloader, examples: ExampleImages, disk: DiskCache?, memoryBytes: Int,
         local: LocalFileReader? = nil, s3: S3Client? = nil, querySeparator: String = "?", tracing: Bool = false) {
        download = SourceDownload(downloader: downloader)
        self.examples = examples
        let cache = disk.map { TieredCache<OriginalData>(disk: $0, memoryBytes: memoryBytes) }
        self.cache = cache
        self.local = local
        self.s3 = s3
        self.querySeparator = querySeparator
        originals = OriginalStage(
            cache: ProxyTracing.cache(cache, stage: "source", tracing: tracing), failure: { ProxyError($0) },
            waitFailure: ProxyError.init(waiting:), onNotModified: Self.countNotModified, shared: true)
    }

    /// Counts a revalidation answered 304 under its kind of source.
    @Sendable static func countNotModified(_ url: URL) {
        (url.scheme == "s3" ? s3Revalidations : httpRevalidations).increment()
    }

    /// The bytes of `url`.
    ///
    /// - Parameter deadline: when a request joining a fetch already under way stops waiting
    ///   (``ProxyError/requestTimedOut``); the caller running the fetch is bounded by the
    ///   fetcher's own timeout.
    /// - Throws: the ``ProxyError`` of the fetch or of a refused source.
    func image(for url: URL, deadline: ContinuousClock.Instant? = nil) async throws(ProxyError) -> OriginalData {
        switch try SourceLocation(url, querySeparator: querySeparator) {
        case .example:
            guard let example = examples.image(for: url) else {
                throw ProxyError(WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404))
            }
            return OriginalData(data: example.data)
        case .local:
            guard let local else { throw .badRequest("Local sources are not enabled on this server") }
            return try await files.original(for: url, from: local, deadline: deadline)
        case .s3(_, _, let version):
            guard let s3 else { throw .badRequest("S3 sources are not enabled on this server") }
            // A version never changes; an object without one is checked with S3 before reuse.
            return try await originals.original(for: url, from: s3, deadline: deadline, revalidating: version == nil ? .always : .never)
        case .http:
            return try await originals.original(for: url, from: download, deadline: deadline, revalidating: .whenStale)
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
