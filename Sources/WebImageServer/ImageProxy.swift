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
/// path ─ signature (403) ─ options: hints, default preset, URL (400) ─ allowlist (403) ─ output choice (Vary)
///   └─ result stage (PipelineStage), keyed by settings fingerprint + path + choice:
///      memory hit → 200 / 304; else one run per key: disk hit, else a render in a transform slot
///      (503 when the line is full), then stored
///             └─ stage A, originals (the pipeline's proxy preset): the source's bytes, from memory or disk,
///                else one transfer per URL (the allowlist and the SSRF guard on every redirect hop)
///                  └─ ImageHeader → ProcessingPlan → reserve the peak from the memory budget (wait, else 503)
///                       └─ ImageRenderer on DecodeQueue: decode at the planned size, then imgproxy's
///                          pipeline as transformers, encode (animations frame by frame) → result cache
/// ```
///
/// Threads: the calling task does parsing and cache lookups; DNS on the resolver's pool;
/// network on AsyncHTTPClient's event loops; decode, render and encode on
/// ``WebImageCodecs/DecodeQueue/shared``; disk reads on a pool of ``ProxyConfig/ioThreads`` threads,
/// writes on each cache's queue. A render runs on the task of the first request that asks
/// for it, as imgproxy renders on the request's goroutine, and its source fetch on that
/// task too, the address guard's check of the source's first hop included (a host name is
/// resolved there, on the resolver's pool): a cold request starts no task of its own. A
/// redirect hop to a host name the resolver must look up is checked in a task of its own,
/// as is a redirect hop the guard refuses (``WebImage/ImageDownloader``). Requests
/// joining a render wait on a continuation whose deadline is a timer; the first one checks
/// its deadline between the stages (the transform slot, the fetch, the memory budget), so
/// a timeout answers 504 at the next stage boundary, never in the middle of a decode. A
/// request whose client goes away (its task is cancelled) stops: its render is cancelled at
/// the next stage, freeing its slot and memory, and the longest-waiting request for the
/// same result, if any, runs it again on its own task. Call ``shutdown()`` when done.
public final class ImageProxy: Sendable {
    public let config: ProxyConfig
    /// The gallery's pictures (`/examples/NAME`).
    public let examples: ExampleImages
    /// ``ProxyConfig/fingerprint``, computed once.
    public let fingerprint: String
    let signer: URLSigner
    let coder = ImageCodersManager.shared
    /// The server's watermark, decoded once; `nil` without one.
    let watermarkImage: PixelBuffer?
    let downloader: ImageDownloader
    /// The pipeline's proxy preset: stage A, the sources' bytes (``SourcesPreset/proxy(cache:downloader:examples:local:s3:querySeparator:)``),
    /// run on the task of the render that asked first, then cached.
    let pipeline: ImagePipeline<SourcesPreset<ProxyError>>
    /// The S3 client, when S3 sources are on.
    let s3: S3Client?
    let sourceDisk: DiskCache?
    /// Encoded results by key (settings fingerprint + signed path + output choice): bounded
    /// memory in front of the results' disk cache; `nil` without caching.
    let results: TieredCache<RenderedImage>?
    /// `/info` answers by theirs (`info#` + fingerprint + signed path), in the same disk
    /// cache with a sixteenth of the memory bytes (a JSON answer is a few hundred bytes).
    let infoResults: TieredCache<InfoResult>?
    let budget: DiskBudget?
    /// The pipeline's result stage: the result cache, else one render per key, on the
    /// first caller's task, then cached.
    let renders: PipelineStage<RenderedImage, ProxyError>
    /// The same for `/info` answers.
    let infos: PipelineStage<InfoResult, ProxyError>
    /// Transform slots: how many requests fetch and render at once.
    let slots: AdmissionGate
    /// Bytes of decoded pixels in flight.
    let memory: AdmissionGate
    let logger: Logger
    /// Whether the stages make spans (``ProxyTracing``).
    let tracing: Bool

    static let requests = Counter(label: "webimage_serve_requests_total")
    static let resultHits = Counter(label: "webimage_serve_result_cache_hits_total")
    static let renderCount = Counter(label: "webimage_serve_renders_total")
    static let overloads = Counter(label: "webimage_serve_overloaded_total")
    static let renderTime = Timer(label: "webimage_serve_render_seconds")
    static let memoryReserved = Gauge(label: "webimage_serve_memory_reserved_bytes")
    static let memoryWaits = Gauge(label: "webimage_serve_memory_waits")

    /// Makes the proxy's caches, downloader and stages from `configured`; starts nothing.
    ///
    /// - Parameters:
    ///   - configured: the server's settings (flags and `IMGPROXY_*` variables, already read).
    ///   - logger: where refused sources, failed fetches and start-up problems are logged.
    ///   - tracing: make a span for each stage of a request (cache tiers, source fetch,
    ///     decode, transform, encode), under the task's current span, and send the fetch's
    ///     `traceparent` on to http sources. Off, the stages run as if there were no tracing at all.
    public init(config configured: ProxyConfig, logger: Logger = Logger(label: "WebImageServer"), tracing: Bool = false) {
        var config = configured
        // The source schemes the settings turn on.
        if config.localRoot != nil { config.language.sourceSchemes.insert("local") }
        if config.s3.isEnabled { config.language.sourceSchemes.insert("s3") }
        self.config = config
        self.logger = logger
        self.tracing = tracing
        fingerprint = config.fingerprint
        signer = URLSigner(pairs: config.keys, signatureSize: config.signatureSize, trusted: config.trustedSignatures)
        examples = ExampleImages.shared
        watermarkImage = config.output.watermark.flatMap { try? ImageCodersManager.shared.decode($0, options: ImageDecodeOptions()).pixels }

        var downloads = DownloaderConfig()
        let allowlist = config.sourceAllowlist
        let addressPolicy = config.allowsPrivateAddresses ? nil : AddressPolicy(
            refusedKinds: Set(IPAddress.Kind.allCases).subtracting([.global]).subtracting(config.allowedAddressKinds),
            allowedNetworks: config.allowedNetworks, resolver: config.hostResolver)
        downloads.hopPolicy = HopPolicy(sources: allowlist.isEmpty ? nil : allowlist, addresses: addressPolicy)
        downloads.maxResponseBytes = config.maxSourceBytes
        downloads.downloadTimeout = config.requestTimeout
        downloads.maxConcurrentDownloads = max(16, config.maxConcurrentTransforms)
        if tracing { downloads.requestModifier = ProxyTracing.injectingTraceContext }
        downloader = ImageDownloader(config: downloads)

        if config.isCacheEnabled {
            let root = config.cacheDirectory ?? DiskCache.defaultDirectory(namespace: "webimage-serve")
            let budget = DiskBudget(root: root, maxBytes: config.maxCacheBytes, maxAge: config.maxCacheAge)
            var diskConfig = DiskCache.Config()
            diskConfig.budget = budget
            diskConfig.ioPool = BlockingIOPool(threadCount: config.ioThreads)
            self.budget = budget
            // Sources keep their metadata as the library's entries do, in extended data; the
            // folder of the former inline form (`sources/`) is not read, and its entries go.
            let originals = DiskCache(directory: root.appendingPathComponent("originals", isDirectory: true), config: diskConfig)
            let former = root.appendingPathComponent("sources", isDirectory: true).path
            originals.ioQueue.async { DiskCache.removeFormerFolderSync(at: former) }
            sourceDisk = originals
            let resultDisk = DiskCache(directory: root.appendingPathComponent("results", isDirectory: true), config: diskConfig)
            results = TieredCache(disk: resultDisk, memoryBytes: config.memoryCacheBytes)
            infoResults = TieredCache(disk: resultDisk, memoryBytes: config.memoryCacheBytes / 16)
        } else {
            budget = nil
            sourceDisk = nil
            results = nil
            infoResults = nil
        }
        let countHit: @Sendable () -> Void = { Self.resultHits.increment() }
        renders = PipelineStage(cache: ProxyTracing.cache(results, stage: "result", tracing: tracing),
                                waitFailure: ProxyError.init(waiting:), onStoredHit: countHit)
        infos = PipelineStage(cache: ProxyTracing.cache(infoResults, stage: "info", tracing: tracing),
                              waitFailure: ProxyError.init(waiting:), onStoredHit: countHit)
        // Local files are read on a pool of their own, so a slow disk there never holds up
        // the caches' reads; its line is bounded like every queue of the server.
        let local = config.localRoot.flatMap {
            LocalFileReader(root: $0, pool: BlockingIOPool(threadCount: config.ioThreads, maxPending: 1024), maxBytes: config.maxSourceBytes)
        }
        if config.localRoot != nil, local == nil {
            logger.error("the local root is not a directory: local:// sources will fail", metadata: ["root": "\(config.localRoot?.path ?? "")"])
        }
        s3 = config.s3.isEnabled
            ? S3Client(settings: config.s3, addresses: addressPolicy, timeout: config.requestTimeout, maxBytes: config.maxSourceBytes)
            : nil
        let sourceCache = sourceDisk.map { TieredCache<OriginalData>(disk: $0, memoryBytes: config.memoryCacheBytes / 4) }
        pipeline = ImagePipeline(.proxy(
            cache: ProxyTracing.cache(sourceCache, stage: "source", tracing: tracing), downloader: downloader, examples: examples,
            local: local, s3: s3, querySeparator: config.sourceURLQuerySeparator))
        slots = AdmissionGate(capacity: config.maxConcurrentTransforms, maxWaiting: config.maxQueuedTransforms)
        memory = AdmissionGate(
            capacity: config.maxMemoryBytes, maxWaiting: config.maxQueuedTransforms + config.maxConcurrentTransforms,
            maxWait: .milliseconds(Int64(config.requestTimeout * 500)))
    }

    /// Finishes pending cache writes and closes the downloader's connections. In-flight
    /// requests should have ended first (the server's graceful shutdown does that).
    public func shutdown() async {
        await results?.flush()  // the info answers share its disk cache
        await sourceDisk?.flush()
        await downloader.shutdown()
        await s3?.shutdown()
    }

    // MARK: Requests

    /// The request headers that shape an answer.
    public struct RequestHeaders: Sendable {
        public var accept: String?
        public var ifNoneMatch: String?
        /// `Sec-CH-DPR`, else `DPR` (read only with client hints on).
        public var dpr: String?
        /// `Sec-CH-Width`, else `Width`.
        public var width: String?

        public init(accept: String? = nil, ifNoneMatch: String? = nil, dpr: String? = nil, width: String? = nil) {
            self.accept = accept
            self.ifNoneMatch = ifNoneMatch
            self.dpr = dpr
            self.width = width
        }
    }

    /// Answers one image request. Cancelling the calling task (the client went away)
    /// answers ``ProxyError/clientClosedRequest``, which the server does not send.
    ///
    /// - Parameters:
    ///   - path: the raw request path (percent-encoded, without the query).
    ///   - headers: the request headers that change the answer (`Accept`, `If-None-Match`,
    ///     client hints).
    public func respond(path: String, headers: RequestHeaders = RequestHeaders()) async -> ProxyResponse {
        Self.requests.increment()
        do {
            let (request, hints) = try parse(path, headers: headers)
            let choice = OutputChoice(named: request.options.format, accept: headers.accept, settings: config.output, coder: coder)
            let key = fingerprint + request.signedPath + "#" + choice.cacheKey + hints.cacheKey
            let image = try await render(request, choice: choice, key: key)
            return ProxyResponse.image(image, answer: ResponseRules(
                config: config, options: request.options, source: request.source, signed: request.signature != "unsafe",
                varyAccept: choice.variesWithAccept, clientHints: config.output.clientHints), ifNoneMatch: headers.ifNoneMatch)
        } catch {
            return answer(error, path: path)
        }
    }

    /// The response for a failed request (logged or counted as its kind deserves).
    func answer(_ error: ProxyError, path: String) -> ProxyResponse {
        if error == .clientClosedRequest || Task.isCancelled {
            logger.debug("client closed the request", metadata: ["path": "\(path.prefix(200))"])
            return ProxyResponse.error(.clientClosedRequest)
        }
        if error == .overloaded {
            // Counted, not logged: a flood would otherwise log one line per refusal.
            Self.overloads.increment()
            logger.debug("overloaded", metadata: ["path": "\(path.prefix(200))"])
        } else if error.status >= 500 || error.code == 2011 {
            // The reason (the refused address, the socket's error) goes to the log only.
            var metadata: Logger.Metadata = ["path": "\(path.prefix(200))"]
            if let detail = error.logDetail { metadata["reason"] = "\(detail.prefix(300))" }
            if error.code == 2011 {
                logger.notice("forbiddenAddress: a source address the SSRF guard refuses", metadata: metadata)
            } else {
                logger.warning("\(error.name): \(error.message)", metadata: metadata)
            }
        }
        return ProxyResponse.error(error)
    }

    /// Checks the signature first (so nothing about a forged URL's options is revealed),
    /// then parses the options (client hints first, then the `default` preset, then the
    /// URL's) and checks the source against the allowlist.
    func parse(_ path: String, headers: RequestHeaders = RequestHeaders()) throws(ProxyError) -> (ProxyURL, ClientHints) {
        let (signature, signedPath) = try ProxyURL.splitSignature(path, prefix: config.language.pathPrefix)
        try checkSignature(signature, signedPath: signedPath)
        let hints = config.output.clientHints ? ClientHints(dpr: headers.dpr, width: headers.width) : ClientHints()
        let request = try ProxyURL.parse(path, language: config.language, defaults: hints.defaults)
        if request.source.scheme?.lowercased() != ExampleImages.scheme, !config.sourceAllowlist.allows(request.source) {
            throw .sourceNotAllowed
        }
        return (request, hints)
    }

    /// Checks a URL's signature segment against what it signs (`/` + `signedPath`); without
    /// a key, refuses only a segment that looks like an option.
    func checkSignature(_ signature: Substring, signedPath: String) throws(ProxyError) {
        if signer.isSigning {
            guard signer.isValid(signature: String(signature), for: "/" + signedPath) else {
                throw .badSignature(signature == "unsafe" ? "Unsigned URLs are not accepted by this server" : "The signature does not match")
            }
        } else if signature.utf8.contains(UInt8(ascii: ":")) {
            // imgproxy 4: a forgotten signature would silently eat the first option.
            throw .badSignature("The signature appears to be a processing option; the signature segment must always be present")
        }
    }

    /// The result for `key`: from the caches, else rendered once for every waiting request,
    /// within the request timeout (``ProxyError/requestTimedOut``). The first caller renders
    /// on its own task, checking the deadline between stages; a joiner waits on a timer (no
    /// task) and stops waiting at the deadline while the render goes on for the others.
    private func render(_ request: ProxyURL, choice: OutputChoice, key: String) async throws(ProxyError) -> RenderedImage {
        let deadline = requestDeadline()
        return try await renders.value(forKey: key, deadline: deadline) { [self] _ throws(ProxyError) in
            .init(try await slots.admit(units: 1, deadline: deadline) {
                await make(request, choice: choice, deadline: deadline)
            }.get())
        }
    }

    /// When a request arriving now times out.
    func requestDeadline() -> ContinuousClock.Instant {
        ContinuousClock.now + .milliseconds(Int64(config.requestTimeout * 1000))
    }

    /// Fetches, plans and renders one result (``renders`` caches it). Runs in a transform slot, on the
    /// task of the request that asked first; gives up with ``ProxyError/requestTimedOut``
    /// at the first stage boundary past `deadline` (a decode under way is finished, then
    /// its result kept).
    private func make(
        _ request: ProxyURL, choice: OutputChoice, deadline: ContinuousClock.Instant
    ) async -> Result<RenderedImage, ProxyError> {
        let start = ContinuousClock.now
        Self.renderCount.increment()
        do throws(ProxyError) {
            let options = request.options
            let source = try await source(for: request.source, deadline: deadline)
            if ContinuousClock.now >= deadline { throw .requestTimedOut }
            if let limit = options.maxSourceFileSize, limit > 0, source.data.count > limit {
                throw ProxyError(WebImageError(.responseTooLarge, "The source has more than \(limit) bytes"))
            }
            let header = ImageHeader(source.data)
            // The ETag hashes the output when the source has no validator: in the render's
            // decode-queue job, or a job of its own for a passed-through source, so a request's
            // task (on its connection's event loop) never hashes megabytes.
            let etagOf = { @Sendable [fingerprint] (output: ImageRenderer.Output) -> String in
                RenderedImage.etag(fingerprint: fingerprint, sourceValidator: source.validator, data: output.data,
                                   path: request.signedPath, format: output.format)
            }
            let output: ImageRenderer.Output
            let etag: String
            if let passed = passThrough(source, header: header, options: options) {
                output = passed
                etag = source.validator != nil ? etagOf(passed) : try await Self.decodeQueueResult { () throws(WebImageError) in
                    etagOf(passed)
                }.get()
            } else {
                let renderer = ImageRenderer(
                    options: options, choice: choice,
                    limits: RenderLimits(maxSourcePixels: config.maxSourcePixels, maxOutputPixels: config.maxOutputPixels,
                                         maxAnimationFrames: config.maxAnimationFrames),
                    output: config.output, watermark: watermarkImage, trace: renderTrace)
                try Self.typed { () throws(WebImageError) in try renderer.checkPlannedOutput(header) }
                let peak = MemoryEstimate.peakBytes(renderer: renderer, header: header, config: config)
                (output, etag) = try await memory.admit(units: peak, deadline: deadline) { [memory] in
                    Self.memoryReserved.record(memory.usedUnits)
                    Self.memoryWaits.record(memory.admittedAfterWaiting)
                    return await Self.decodeQueueResult { () throws(WebImageError) -> (ImageRenderer.Output, String) in
                        let output = try renderer.render(source.data, header: header)
                        return (output, etagOf(output))
                    }
                }.get()
            }
            let lastModified = source.lastModified.flatMap(HTTPDateFormat.parse) ?? Date()
            let result = RenderedImage(
                data: output.data, format: output.format, etag: etag,
                lastModified: lastModified, sourceCacheControl: ResponseRules.passthroughCacheControl(source))
            let elapsed = (ContinuousClock.now - start).components
            Self.renderTime.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    /// The source's own bytes when the URL asks for `raw`, or the source's format is one
    /// processing is skipped for (`skip_processing`, `IMGPROXY_SKIP_PROCESSING_FORMATS`)
    /// and the URL names no other format.
    private func passThrough(_ source: OriginalData, header: ImageHeader?, options: ProcessingOptions) -> ImageRenderer.Output? {
        let format = header?.format ?? ImageFormat.detect(source.data)
        let skipped = config.output.skipProcessingFormats.union(options.skipProcessing)
        guard options.raw || (skipped.contains(format) && (options.format == nil || options.format == format)) else { return nil }
        return ImageRenderer.Output(data: source.data, format: format, size: header?.displaySize ?? PixelSize(width: 0, height: 0))
    }

    /// Runs `body`, mapping its library error to a proxy error.
    static func typed(_ body: () throws(WebImageError) -> Void) throws(ProxyError) {
        do throws(WebImageError) { try body() } catch { throw ProxyError(error) }
    }

    /// Runs `work` on the decode queue, mapping its errors to proxy errors.
    static func decodeQueueResult<T: Sendable>(
        _ work: @escaping @Sendable () throws(WebImageError) -> T
    ) async -> Result<T, ProxyError> {
        do {
            return .success(try await DecodeQueue.shared.run { () throws -> T in
                do throws(WebImageError) { return try work() } catch { throw error }
            })
        } catch let error as WebImageError {
            return .failure(ProxyError(error))
        } catch {
            return .failure(ProxyError(WebImageError(.encodingFailed, "\(error)")))
        }
    }
}
