import Foundation
import Metrics
import Synchronization
import WebImage
import WebImageCodecs

/// Gets a source's encoded bytes, by its ``SourceLocation``:
///
/// - the built-in examples, from memory;
/// - http(s): a bounded memory cache, else the disk cache, else the downloader (its
///   ``WebImage/HopPolicy`` checks the source and every redirect hop);
/// - `local://`: the file, read afresh each time by ``LocalFileReader`` (no copy is cached:
///   reading the file costs what reading a cached copy would, and a changed file is seen
///   at once);
/// - `s3://`: ``S3Client``, cached like http, except that a cached object without a
///   version id is revalidated with `If-None-Match` (a 304 costs no transfer), so a
///   render after the object changed uses the new bytes.
///
/// One fetch per source at a time: concurrent requests for a source share it, and the
/// memory cache lets the requests that follow share its bytes too (one copy of a 3 MB
/// photo, not one per request).
///
/// Runs on the calling task; disk and file reads on I/O pools, transfers on
/// AsyncHTTPClient's event loops. Nothing is decoded here: the proxy plans the decode
/// from the header first (``RenderPlan``), so no pixel exists before its memory is reserved.
final class SourceFetcher: Sendable {
    let downloader: ImageDownloader
    let examples: ExampleImages
    /// The cached sources (http, S3): a bounded memory tier in front of the disk cache;
    /// `nil` without caching (`--no-cache`).
    let cache: TieredCache<SourceImage>?
    /// `nil` unless a local root is set.
    let local: LocalFileReader?
    /// `nil` unless S3 sources are enabled.
    let s3: S3Client?
    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`.
    let querySeparator: String
    /// The pipeline's source stage for http and S3: the cache, else one fetch per source,
    /// run on the task of the render that asked first (no task of its own), then cached.
    let fetches: PipelineStage<SourceImage, ProxyError>
    /// `local://` sources: one read per file at a time, nothing cached.
    let files = PipelineStage<SourceImage, ProxyError>(cache: nil, waitFailure: ProxyError.init(waiting:))
    /// S3 revalidations answered 304 (tests, metrics).
    let s3NotModified = Atomic<Int>(0)

    static let s3Revalidations = Counter(label: "webimage_serve_s3_not_modified_total")

    /// - Parameter tracing: the cache's lookups are spans (``ProxyTracing``).
    init(downloader: ImageDownloader, examples: ExampleImages, disk: DiskCache?, memoryBytes: Int,
         local: LocalFileReader? = nil, s3: S3Client? = nil, querySeparator: String = "?", tracing: Bool = false) {
        self.downloader = downloader
        self.examples = examples
        let cache = disk.map { TieredCache<SourceImage>(disk: $0, memoryBytes: memoryBytes) }
        self.cache = cache
        fetches = PipelineStage(cache: ProxyTracing.cache(cache, stage: "source", tracing: tracing),
                                waitFailure: ProxyError.init(waiting:))
        self.local = local
        self.s3 = s3
        self.querySeparator = querySeparator
    }

    /// The bytes of `url`.
    ///
    /// - Parameter deadline: when a request joining a fetch already under way stops waiting
    ///   (``ProxyError/requestTimedOut``); the caller running the fetch is bounded by the
    ///   downloader's own timeout.
    /// - Throws: the ``ProxyError`` of the download or of a refused source.
    func image(for url: URL, deadline: ContinuousClock.Instant? = nil) async throws(ProxyError) -> SourceImage {
        let key = url.absoluteString
        switch try SourceLocation(url, querySeparator: querySeparator) {
        case .example:
            guard let example = examples.image(for: url) else {
                throw ProxyError(WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404))
            }
            return SourceImage(data: example.data)
        case .local(let path):
            guard let local else { throw .badRequest("Local sources are not enabled on this server") }
            return try await files.value(forKey: key, deadline: deadline) { _ throws(ProxyError) in
                .init(try await local.read(path))
            }
        case .s3(let bucket, let objectKey, let version):
            guard let s3 else { throw .badRequest("S3 sources are not enabled on this server") }
            // A version never changes; an object without one is checked with S3 before reuse.
            return try await fetches.value(forKey: key, deadline: deadline, revalidating: version == nil) { [self] cached throws(ProxyError) in
                try await fetchS3(s3, bucket: bucket, key: objectKey, version: version, cached: cached)
            }
        case .http:
            return try await fetches.value(forKey: key, deadline: deadline) { [self] _ throws(ProxyError) in
                try await fetch(url)
            }
        }
    }

    /// An S3 object: the cached copy when S3 says it is unchanged, else the object.
    private func fetchS3(
        _ s3: S3Client, bucket: String, key: String, version: String?, cached: SourceImage?
    ) async throws(ProxyError) -> PipelineStage<SourceImage, ProxyError>.Made {
        let outcome = try await s3.get(bucket: bucket, key: key, versionID: version, ifNoneMatch: cached?.etag)
        switch outcome {
        case .notModified:
            guard let cached else { throw ProxyError(WebImageError(.invalidDownloadStatusCode, "HTTP 304", httpStatusCode: 304)) }
            s3NotModified.add(1, ordering: .relaxed)
            Self.s3Revalidations.increment()
            return .init(cached, store: false)
        case .object(let source, _, _):
            guard !source.data.isEmpty else { throw ProxyError(WebImageError.badImageData("The source is empty")) }
            return .init(source, store: !source.isNoStore)
        }
    }

    private func fetch(_ url: URL) async throws(ProxyError) -> PipelineStage<SourceImage, ProxyError>.Made {
        let response: ImageLoadResponse
        do {
            response = try await downloader.loadImage(with: url, options: [.avoidDecodeImage])
        } catch {
            throw ProxyError(error)
        }
        guard let data = response.data, !data.isEmpty else {
            throw ProxyError(WebImageError.badImageData("The source is empty"))
        }
        let source = SourceImage(
            data: data, etag: response.http?.validators.etag, lastModified: response.http?.validators.lastModified,
            cacheControl: response.http?.headers["Cache-Control"], expires: response.http?.headers["Expires"])
        // Cache-Control: no-store from the source is honoured: not written.
        return .init(source, store: !source.isNoStore)
    }
}
