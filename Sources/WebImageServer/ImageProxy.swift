import Foundation
import Logging
import Metrics
import WebImage
import WebImageCodecs

/// The image proxy's engine, independent of the HTTP server: one call per request,
/// from the raw path and the headers that matter to the response to send.
///
/// The stages of one image request, each shared by every request that needs it:
///
/// ```
/// path ─ signature (403) ─ options (400) ─ allowlist (403) ─ format: f:/.ext, else Accept (Vary)
///   └─ result cache (memory, then disk)                               hit → 200 / 304
///        └─ one render per (path, format) at a time (Coalescer), in a transform slot (503 when full)
///             └─ ImageManager: decoded source at the needed size: one transfer per URL,
///                one decode per URL and size, original bytes cached on disk
///                  └─ ImageRenderer on DecodeQueue: crop/resize, blur, encode → result cache
/// ```
///
/// Threads: the calling task does parsing and cache lookups; network on
/// AsyncHTTPClient's event loops; decode, render and encode on ``DecodeQueue/shared``;
/// disk I/O on the library's blocking-I/O pool. Call ``shutdown()`` when done.
public final class ImageProxy: Sendable {
    public let config: ProxyConfig
    /// The gallery's pictures (`/examples/NAME`).
    public let examples: ExampleImages
    let signer: URLSigner
    let coder: CoverDecodingCoder
    let downloader: ImageDownloader
    let manager: ImageManager
    let sourceCache: ImageCache
    let results: ResultCache?
    let renders = Coalescer<Result<RenderedImage, ProxyError>>()
    let limiter: TransformLimiter
    let logger: Logger

    static let requests = Counter(label: "webimage_serve_requests_total")
    static let resultHits = Counter(label: "webimage_serve_result_cache_hits_total")
    static let renderCount = Counter(label: "webimage_serve_renders_total")
    static let overloads = Counter(label: "webimage_serve_overloaded_total")
    static let renderTime = Timer(label: "webimage_serve_render_seconds")

    public init(config: ProxyConfig, logger: Logger = Logger(label: "WebImageServer")) {
        self.config = config
        self.logger = logger
        signer = URLSigner(pairs: config.keys)
        coder = CoverDecodingCoder(inner: .shared, maxPixelCount: config.maxSourcePixels)
        examples = ExampleImages.shared

        var downloads = DownloaderConfig()
        downloads.addressPolicy = config.allowsPrivateAddresses ? nil : AddressPolicy(allowedNetworks: config.allowedNetworks)
        downloads.maxResponseBytes = config.maxSourceBytes
        downloads.downloadTimeout = config.requestTimeout
        downloads.maxConcurrentDownloads = max(16, config.maxConcurrentTransforms)
        downloads.coders = coder
        downloader = ImageDownloader(config: downloads)

        let root = config.cacheDirectory ?? DiskCache.defaultDirectory(namespace: "webimage-serve")
        var cacheConfig = ImageCache.Config()
        cacheConfig.coders = ImageCodersManager(coders: [coder])
        cacheConfig.maxMemoryCost = config.isCacheEnabled ? max(1, config.memoryCacheBytes) : 1
        cacheConfig.shouldUseDisk = config.isCacheEnabled
        sourceCache = ImageCache(namespace: "sources", directory: root, config: cacheConfig)
        results = config.isCacheEnabled
            ? ResultCache(directory: root.appendingPathComponent("results"), memoryBytes: config.memoryCacheBytes) : nil
        // http(s) through the guarded downloader, the built-in examples, and nothing else
        // (no file: loader): AddressPolicy's recipe for untrusted URLs.
        let loaders = ImageLoadersManager(loaders: [downloader, ExampleImageLoader(examples: examples, coder: coder)])
        manager = ImageManager(cache: sourceCache, loader: loaders)
        limiter = TransformLimiter(maxRunning: config.maxConcurrentTransforms, maxWaiting: config.maxQueuedTransforms)
    }

    /// Finishes pending cache writes and closes the downloader's connections. In-flight
    /// requests should have ended first (the server's graceful shutdown does that).
    public func shutdown() async {
        await results?.flush()
        await sourceCache.diskCache.flush()
        await downloader.shutdown()
    }

    // MARK: Requests

    /// Answers one image request.
    ///
    /// - Parameters:
    ///   - path: the raw request path (percent-encoded, without the query).
    ///   - accept: the `Accept` header.
    ///   - ifNoneMatch: the `If-None-Match` header.
    public func respond(path: String, accept: String?, ifNoneMatch: String?) async -> ProxyResponse {
        Self.requests.increment()
        do {
            let request = try parse(path)
            let negotiated = request.options.format == nil
            let format = request.options.format ?? FormatNegotiation.format(accept: accept, coder: coder)
            let key = request.signedPart + "#" + (format?.rawValue ?? "source")
            let image = try await render(request, format: format, key: key)
            return ProxyResponse.image(
                image, varyAccept: negotiated, signed: request.signature != "unsafe", maxAge: config.maxAge,
                ifNoneMatch: ifNoneMatch)
        } catch {
            if error.status >= 500 { logger.warning("\(error.name): \(error.message)", metadata: ["path": "\(path.prefix(200))"]) }
            if error == .overloaded { Self.overloads.increment() }
            return ProxyResponse.error(error)
        }
    }

    /// Checks the signature first (so nothing about a forged URL's options is revealed),
    /// then the options and the source.
    func parse(_ path: String) throws(ProxyError) -> ProxyPath {
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard segments.count == 2, segments[0].isEmpty else { throw .badRequest("Expected /{signature}/…") }
        let rest = segments[1]
        // One segment is no proxy URL at all (`/robots.txt`): not found, not a bad signature.
        guard rest.contains("/") else { throw .notFound }
        let signature = rest.prefix { $0 != "/" }
        let signed = String(rest.dropFirst(signature.count))
        if signature == "unsafe" {
            guard config.allowsUnsigned else { throw .badSignature("Unsigned URLs are not accepted by this server") }
        } else if !signer.isValid(signature: String(signature), for: signed) {
            throw .badSignature("The signature does not match")
        }
        let request = try ProxyPath.parse(path)
        if request.source.scheme?.lowercased() != ExampleImages.scheme,
           !config.allowsSource(host: request.source.host ?? "") {
            throw .sourceNotAllowed
        }
        return request
    }

    /// The result for `key`: from the caches, else rendered once for every waiting request.
    private func render(_ request: ProxyPath, format: ImageFormat?, key: String) async throws(ProxyError) -> RenderedImage {
        if let results, let hit = await results.value(forKey: key) {
            Self.resultHits.increment()
            return hit
        }
        let work: @Sendable () async -> Result<RenderedImage, ProxyError> = { [self] in
            do throws(ProxyError) {
                return try await limiter.run { await make(request, format: format, key: key) }
            } catch {
                return .failure(error)
            }
        }
        let deadline = config.requestTimeout
        // Whichever ends first: the render, or the deadline (the loser is cancelled; a
        // cancelled wait for the render returns at once, the render itself goes on).
        let result = await withTaskGroup(of: Result<RenderedImage, ProxyError>?.self) { group in
            group.addTask { await self.renders.value(forKey: key, work) }
            group.addTask {
                try? await Task.sleep(for: .seconds(deadline))
                return Task.isCancelled ? nil : .failure(.requestTimedOut)
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.requestTimedOut)
        }
        return try result.get()
    }

    /// Loads, renders and caches one result. Runs in a transform slot.
    private func make(_ request: ProxyPath, format: ImageFormat?, key: String) async -> Result<RenderedImage, ProxyError> {
        let start = ContinuousClock.now
        Self.renderCount.increment()
        var context = WebImageContext()
        let box = ImageRenderer.decodeBox(for: request.options)
        context.thumbnailPixelSize = box?.size
        context.preserveAspectRatio = !(box?.cover ?? false)
        let caching = config.isCacheEnabled
        // Decoded sources stay in memory (bounded) so other outputs of the same size skip
        // the decode; the original bytes go to disk so other sizes skip the download.
        context.queryCacheType = caching ? .memory : .none
        context.storeCacheType = caching ? (box == nil ? .all : .memory) : .none
        context.originalQueryCacheType = caching ? .disk : .none
        context.originalStoreCacheType = caching ? .disk : .none
        // An animation arrives as its poster frame plus frames decoded on demand, so a
        // still output of a long GIF costs one frame, and the frame limit is checked
        // before the others are decoded. `retryFailed`: a proxy asks again each time
        // rather than keep a source failed for an hour.
        let options: WebImageOptions = [.retryFailed, .lazyAnimatedImage]
        let response: ImageResponse
        do {
            response = try await manager.loadImage(with: request.source, options: options, context: context)
        } catch {
            return .failure(ProxyError(error))
        }
        let renderer = ImageRenderer(
            options: request.options, format: format, quality: request.options.quality ?? config.defaultQuality,
            maxOutputPixels: config.maxOutputPixels, maxAnimationFrames: config.maxAnimationFrames, coder: coder)
        let image = response.image
        let rendered: (Data, ImageFormat)
        do {
            rendered = try await DecodeQueue.shared.run { try renderer.render(image) }
        } catch let error as WebImageError {
            return .failure(ProxyError(error))
        } catch {
            return .failure(ProxyError(WebImageError(.encodingFailed, "\(error)")))
        }
        let validators = response.http?.validators
        let sourceValidator = validators?.etag ?? validators?.lastModified
        let lastModified = validators?.lastModified.flatMap(HTTPDateFormat.parse) ?? Date()
        let result = RenderedImage(
            data: rendered.0, format: rendered.1,
            etag: RenderedImage.etag(sourceValidator: sourceValidator, data: rendered.0, path: request.signedPart, format: rendered.1),
            lastModified: lastModified)
        results?.store(result, forKey: key)
        let elapsed = (ContinuousClock.now - start).components
        Self.renderTime.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        return .success(result)
    }
}
