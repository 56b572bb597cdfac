import Foundation
import Tracing
import WebImage

extension ImageProxy {
    /// The source stage (stage A, ``pipeline``), in a `source.fetch` span while tracing: its
    /// cache lookups and the download (which sends this span's `traceparent` to the source)
    /// are its children. Runs on the calling task.
    func source(for url: URL, deadline: ContinuousClock.Instant) async throws(ProxyError) -> OriginalData {
        guard tracing else { return try await pipeline.original(for: url, deadline: deadline) }
        return try await ProxyTracing.span("source.fetch") { [pipeline] span throws(ProxyError) in
            // Scheme and host only: a source URL may carry credentials or tokens in its path or query.
            span.attributes["url.scheme"] = url.scheme ?? ""
            span.attributes["server.address"] = url.host ?? ""
            let source = try await pipeline.original(for: url, deadline: deadline)
            span.attributes["webimage.source.bytes"] = source.data.count
            return source
        }
    }

    /// The render steps' spans, parented on the calling task's span; `nil` when not tracing.
    var renderTrace: RenderTrace? {
        tracing ? RenderTrace(parent: ServiceContext.current ?? .topLevel) : nil
    }
}
