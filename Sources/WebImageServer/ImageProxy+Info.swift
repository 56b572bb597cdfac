import Crypto
import Foundation
import Metrics
import WebImage
import WebImageCodecs

/// `GET /info/{signature}/{info options}/{source}`: what imgproxy Pro's `/info` answers,
/// through the same stages as an image, so it is signed, limited, cached and coalesced
/// like one:
///
/// ```
/// path ─ signature (403) ─ info options, info `default` preset (400) ─ allowlist (403)
///   └─ info stage (PipelineStage), key "info#" + settings fingerprint + path: memory hit → 200 / 304;
///      else one run per key: disk hit, else a computation in a transform slot (503 when the line
///      is full), then stored
///             └─ stage A (the pipeline's proxy preset) ─ header (pixel limit, 422) ─ memory reserved when pixels are needed
///                  └─ ImageInfo on DecodeQueue (header facts; one ≤100 px thumbnail for the rest)
///                       └─ the crop window (ProcessingPlan) ─ JSON
/// ```
extension ImageProxy {
    static let infoRequests = Counter(label: "webimage_serve_info_requests_total")

    /// Answers one `/info` request (the raw path, with the path prefix).
    public func respondInfo(path: String, headers: RequestHeaders = RequestHeaders()) async -> ProxyResponse {
        Self.infoRequests.increment()
        do {
            let request = try parseInfo(path)
            let key = "info#" + fingerprint + request.signedPath
            let result = try await info(request, key: key)
            var options = ProcessingOptions()
            options.expires = request.options.expires
            let rules = ResponseRules(config: config, options: options, source: request.source,
                                      signed: request.signature != "unsafe", varyAccept: false, clientHints: false)
            return ProxyResponse.info(result, cacheControl: rules.cacheControl(sourceCacheControl: nil), ifNoneMatch: headers.ifNoneMatch)
        } catch {
            return answer(error, path: path)
        }
    }

    /// Whether `path` is an info URL (`{prefix}/info/…`).
    public func isInfoPath(_ path: String) -> Bool {
        path.hasPrefix(config.language.pathPrefix + "/" + InfoURL.segment + "/")
    }

    /// The signature first, then the options, then the allowlist (as for images).
    func parseInfo(_ path: String) throws(ProxyError) -> InfoURL {
        let (signature, signedPath) = try ProxyURL.splitSignature(path, prefix: config.language.pathPrefix + "/" + InfoURL.segment)
        try checkSignature(signature, signedPath: signedPath)
        let request = try InfoURL.parse(path, language: config.language, presets: config.infoPresets)
        if request.source.scheme?.lowercased() != ExampleImages.scheme, !config.sourceAllowlist.allows(request.source) {
            throw .sourceNotAllowed
        }
        return request
    }

    /// The answer for `key`: cached, else computed once for every waiting request, within
    /// the request timeout.
    private func info(_ request: InfoURL, key: String) async throws(ProxyError) -> InfoResult {
        let deadline = requestDeadline()
        return try await infos.value(forKey: key, deadline: deadline) { [self] _ throws(ProxyError) in
            .init(try await slots.admit(units: 1, deadline: deadline) { await makeInfo(request, deadline: deadline) }.get())
        }
    }

    /// Fetches the source and reads it (``infos`` caches the JSON). Runs in a transform slot.
    private func makeInfo(
        _ request: InfoURL, deadline: ContinuousClock.Instant
    ) async -> Result<InfoResult, ProxyError> {
        do throws(ProxyError) {
            let source = try await pipeline.original(for: request.source, deadline: deadline)
            if ContinuousClock.now >= deadline { throw .requestTimedOut }
            let header = ImageHeader(source.data)
            if let header {
                let (pixels, overflow) = header.storedSize.width.multipliedReportingOverflow(by: header.storedSize.height)
                if overflow || pixels > config.maxSourcePixels {
                    throw ProxyError(WebImageError(.imageTooLarge, "\(header.storedSize)"))
                }
            }
            var options = request.options.info
            options.maxPixelCount = config.maxSourcePixels
            let crop = request.options.crop
            let smart = crop?.gravity?.kind == .smart
            options.keepsThumbnail = smart
            let peak = options.needsPixels ? MemoryEstimate.infoPeakBytes(header: header, page: options.page, config: config) : 0
            let coder = self.coder
            let infoOptions = options
            let info = try await memory.admit(units: peak) {
                await Self.decodeQueueResult { () throws(WebImageError) -> ImageInfo in
                    try ImageInfo(source.data, options: infoOptions, coder: coder)
                }
            }.get()
            var extra: [String: Any] = [:]
            if let crop {
                extra["crop"] = Self.cropWindow(crop, info: info)
            }
            let json = info.jsonData(adding: extra)
            var hash = SHA256()
            hash.update(data: Array("\(fingerprint)\ninfo\n\(request.signedPath)\n".utf8))
            hash.update(data: json)
            let etag = "\"" + hash.finalize().prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
            let result = InfoResult(json: json, etag: etag, lastModified: source.lastModified.flatMap(HTTPDateFormat.parse) ?? Date())
            return .success(result)
        } catch {
            return .failure(error)
        }
    }

    /// The window `crop` cuts from the (oriented) image, relative to its size, as imgproxy
    /// reports it: `{"left", "top", "width", "height"}` in 0…1. Anchored gravities and focus
    /// points come from the same arithmetic as processing (``ProcessingPlan``); smart
    /// gravity from the attention window of the thumbnail.
    static func cropWindow(_ crop: ProcessingOptions.Crop, info: ImageInfo) -> [String: Double] {
        let size = PixelSize(width: max(1, info.width), height: max(1, info.height))
        var options = ProcessingOptions()
        options.crop = crop
        let plan = ProcessingPlan(source: size, options: options, maxResultDimension: 0)
        let w = Double(size.width), h = Double(size.height)
        guard let window = plan.crop else { return ["left": 0, "top": 0, "width": 1, "height": 1] }
        if crop.gravity?.kind == .smart, let thumbnail = info.thumbnail {
            let sx = Double(thumbnail.width) / w, sy = Double(thumbnail.height) / h
            let inner = PixelSize(width: max(1, Int((Double(window.width) * sx).rounded())),
                                  height: max(1, Int((Double(window.height) * sy).rounded())))
            let found = thumbnail.attentionWindow(size: inner)
            let left = min(max(Double(found.x) / Double(thumbnail.width), 0), 1 - Double(window.width) / w)
            let top = min(max(Double(found.y) / Double(thumbnail.height), 0), 1 - Double(window.height) / h)
            return ["left": left, "top": top, "width": Double(window.width) / w, "height": Double(window.height) / h]
        }
        return ["left": Double(window.x) / w, "top": Double(window.y) / h,
                "width": Double(window.width) / w, "height": Double(window.height) / h]
    }
}

extension ImageProxy {
    /// Checks every info preset of `config` (each applied to default options must parse),
    /// as the server does at start.
    ///
    /// - Throws: ``ProxyError`` (400) naming the bad preset.
    public static func validateInfoPresets(_ config: ProxyConfig) throws(ProxyError) {
        try InfoOptionParser(presets: config.infoPresets, now: 0, processing: config.language.parser(now: 0)).validatePresets()
    }
}
