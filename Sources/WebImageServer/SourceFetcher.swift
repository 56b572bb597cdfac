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
    /// `nil` without caching (`--no-cache`).
    let disk: DiskCache?
    /// Recently used sources, weighed by their byte count; `nil` without caching.
    let memory: MemoryCache<String, SourceImage>?
    /// `nil` unless a local root is set.
    let local: LocalFileReader?
    /// `nil` unless S3 sources are enabled.
    let s3: S3Client?
    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`.
    let querySeparator: String
    /// One fetch per source, run on the task of the render that asked first: no task of its own.
    let fetches = SingleFlight<String, Result<SourceImage, ProxyError>>()
    /// S3 revalidations answered 304 (tests, metrics).
    let s3NotModified = Atomic<Int>(0)

    static let s3Revalidations = Counter(label: "webimage_serve_s3_not_modified_total")

    init(downloader: ImageDownloader, examples: ExampleImages, disk: DiskCache?, memoryBytes: Int,
         local: LocalFileReader? = nil, s3: S3Client? = nil, querySeparator: String = "?") {
        self.downloader = downloader
        self.examples = examples
        self.disk = disk
        memory = disk == nil ? nil : MemoryCache(totalCostLimit: max(1, memoryBytes))
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
        let location = try SourceLocation(url, querySeparator: querySeparator)
        if case .example = location {
            guard let example = examples.image(for: url) else {
                throw ProxyError(WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404))
            }
            return SourceImage(data: example.data)
        }
        let key = url.absoluteString
        if case .http = location, let hit = memory?.value(forKey: key) { return hit }
        let result: Result<SourceImage, ProxyError>
        do {
            result = try await fetches.value(forKey: key, deadline: deadline) { [self] in await load(location, url: url, key: key) }
        } catch {
            throw ProxyError(waiting: error)
        }
        return try result.get()
    }

    /// One fetch of a source, shared by every request for it.
    private func load(_ location: SourceLocation, url: URL, key: String) async -> Result<SourceImage, ProxyError> {
        do throws(ProxyError) {
            switch location {
            case .local(let path):
                guard let local else { throw .badRequest("Local sources are not enabled on this server") }
                return .success(try await local.read(path))
            case .s3(let bucket, let objectKey, let version):
                return .success(try await fetchS3(bucket: bucket, key: objectKey, version: version, cacheKey: key))
            case .http, .example:
                return .success(try await fetch(url, key: key))
            }
        } catch {
            return .failure(error)
        }
    }

    /// An S3 object: the cached copy when S3 says it is unchanged (or it is a version,
    /// which never changes), else the object fetched and cached.
    private func fetchS3(bucket: String, key: String, version: String?, cacheKey: String) async throws(ProxyError) -> SourceImage {
        guard let s3 else { throw .badRequest("S3 sources are not enabled on this server") }
        var cached = memory?.value(forKey: cacheKey)
        if cached == nil, let disk, let stored = await disk.data(forKey: cacheKey) { cached = SourceImage(serialized: stored) }
        if let cached, version != nil { return cached }
        let outcome = try await s3.get(bucket: bucket, key: key, versionID: version, ifNoneMatch: cached?.etag)
        switch outcome {
        case .notModified:
            guard let cached else { throw ProxyError(WebImageError(.invalidDownloadStatusCode, "HTTP 304", httpStatusCode: 304)) }
            s3NotModified.add(1, ordering: .relaxed)
            Self.s3Revalidations.increment()
            memory?.setValue(cached, forKey: cacheKey, cost: cached.data.count)
            return cached
        case .object(let source, _, _):
            guard !source.data.isEmpty else { throw ProxyError(WebImageError.badImageData("The source is empty")) }
            if let disk, source.cacheControl?.lowercased().contains("no-store") != true {
                disk.store(source.serialized, forKey: cacheKey, completion: nil)
                memory?.setValue(source, forKey: cacheKey, cost: source.data.count)
            }
            return source
        }
    }

    private func fetch(_ url: URL, key: String) async throws(ProxyError) -> SourceImage {
        if let disk, let stored = await disk.data(forKey: key), let hit = SourceImage(serialized: stored) {
            memory?.setValue(hit, forKey: key, cost: hit.data.count)
            return hit
        }
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
        if let disk, response.http?.isNoStore != true {
            disk.store(source.serialized, forKey: key, completion: nil)
            memory?.setValue(source, forKey: key, cost: data.count)
        }
        return source
    }
}
