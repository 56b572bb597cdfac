import Foundation
import WebImage
import WebImageCodecs

/// Gets a source's encoded bytes: the built-in examples, else a bounded memory cache,
/// else the disk cache, else the downloader (its ``HopPolicy`` checks the source and every
/// redirect hop). One fetch per URL at a time: concurrent requests for a source share it,
/// and the memory cache lets the requests that follow share its bytes too (one copy of a
/// 3 MB photo, not one per request).
///
/// Runs on the calling task; disk reads on the cache's I/O pool, the transfer on
/// AsyncHTTPClient's event loops. Nothing is decoded here: the proxy plans the decode
/// from the header first (``RenderPlan``), so no pixel exists before its memory is reserved.
final class SourceFetcher: Sendable {
    let downloader: ImageDownloader
    let examples: ExampleImages
    /// `nil` without caching (`--no-cache`).
    let disk: DiskCache?
    /// Recently used sources, weighed by their byte count; `nil` without caching.
    let memory: MemoryCache<String, SourceImage>?
    private let fetches = Coalescer<Result<SourceImage, ProxyError>>()

    init(downloader: ImageDownloader, examples: ExampleImages, disk: DiskCache?, memoryBytes: Int) {
        self.downloader = downloader
        self.examples = examples
        self.disk = disk
        memory = disk == nil ? nil : MemoryCache(totalCostLimit: max(1, memoryBytes))
    }

    /// The bytes of `url`.
    ///
    /// - Throws: the ``ProxyError`` of the download or of a refused source.
    func image(for url: URL) async throws(ProxyError) -> SourceImage {
        if url.scheme?.lowercased() == ExampleImages.scheme {
            guard let example = examples.image(for: url) else {
                throw ProxyError(WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404))
            }
            return SourceImage(data: example.data)
        }
        let key = url.absoluteString
        if let hit = memory?.value(forKey: key) { return hit }
        let result = await fetches.value(forKey: key) { [self] in
            do throws(ProxyError) {
                return .success(try await fetch(url, key: key))
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw .clientClosedRequest }
        return try result.get()
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
