import Foundation
import Tracing
import WebImage
import WebImageCodecs

/// The spans `webimage serve` makes when tracing is on (``ImageProxy/init(config:logger:tracing:)``).
///
/// The request's own span comes from Hummingbird's `TracingMiddleware`, which continues an
/// incoming W3C `traceparent`; these are its children:
///
/// ```
/// GET /**                                   server span (TracingMiddleware)
///   cache.result.memory   webimage.cache.hit
///   cache.result.disk     webimage.cache.hit  (only when the memory tier missed)
///   source.fetch                            the source stage
///     cache.source.memory, cache.source.disk
///                                           (the download sends this span's traceparent on)
///   decode · transform · encode             on the decode queue, parented explicitly
///   transcode                               the planar JPEG path: all three in one pass
/// ```
///
/// A request that joins a render another request already runs gets only the cache spans:
/// the render belongs to the trace of the request that runs it. Off (the default), none of
/// this runs: no span, no task-local, the caches unwrapped. Spans go to the tracer
/// `InstrumentationSystem` was bootstrapped with (swift-otel's in the `webimage` tool built
/// with the OpenTelemetry trait).
enum ProxyTracing {
    /// The attribute of a cache span: whether that tier had the entry.
    static let cacheHit = "webimage.cache.hit"

    /// Runs `body` on the calling task in a span named `name`, a child of the task's
    /// current span; a thrown error is recorded on the span.
    static func span<T>(
        _ name: String, _ body: (any Span) async throws(ProxyError) -> T
    ) async throws(ProxyError) -> T {
        let span = InstrumentationSystem.tracer.startSpan(name, context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        let result: Result<T, ProxyError> = await ServiceContext.$current.withValue(span.context) {
            do throws(ProxyError) { return .success(try await body(span)) } catch { return .failure(error) }
        }
        if case .failure(let error) = result { span.failed(error) }
        return try result.get()
    }

    /// The downloader's request modifier while tracing: adds the calling task's span context
    /// (`traceparent`, and `tracestate` when there is one) to the request for a source. It
    /// runs on the task that asks for the download (``WebImage/ImageDownloader``), inside
    /// `source.fetch`.
    static let injectingTraceContext: ImageDownloadRequestModifier = { request in
        var request = request
        InstrumentationSystem.instrument.inject(
            ServiceContext.current ?? .topLevel, into: &request.headers, using: HeaderFieldsInjector())
        return request
    }

    /// `cache` with its lookups traced as `cache.<stage>.memory` and `cache.<stage>.disk`,
    /// or `cache` itself when tracing is off.
    static func cache<Value: DiskStorable>(
        _ cache: TieredCache<Value>?, stage: String, tracing: Bool
    ) -> (any PipelineStageCache<Value>)? {
        guard let cache else { return nil }
        return tracing ? TracedCache(cache, stage: stage) : cache
    }
}

/// The spans of a render's steps. They run on the decode queue's threads, where no
/// task-local context is, so each is parented explicitly on the context of the request
/// that runs the render.
struct RenderTrace: Sendable {
    let parent: ServiceContext

    /// Runs `body` (on the calling thread) in a span named `name`.
    func step<T>(_ name: String, _ body: () throws(WebImageError) -> T) throws(WebImageError) -> T {
        let span = InstrumentationSystem.tracer.startSpan(name, context: parent)
        defer { span.end() }
        do throws(WebImageError) {
            return try body()
        } catch {
            span.failed(error)
            throw error
        }
    }
}

extension ImageRenderer {
    /// `body` as the render step `name`: a span when the render is traced.
    func step<T>(_ name: String, _ body: () throws(WebImageError) -> T) throws(WebImageError) -> T {
        guard let trace else { return try body() }
        return try trace.step(name, body)
    }
}

extension Span {
    /// Records `error` and marks the span failed.
    func failed(_ error: any Error) {
        recordError(error)
        setStatus(SpanStatus(code: .error))
    }
}

/// Writes propagation fields (W3C `traceparent`, `tracestate`) into a source request's headers.
struct HeaderFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaderFields) {
        carrier[key] = value
    }
}
