import Foundation
import WebImage

/// Loads one URL through a ``CommandPipeline``'s manager and reports how it went.
enum PipelineLoad {
    /// Loads `text` (a URL) with `options` and `context`, counting partial images.
    ///
    /// Returns the last final result: with `refreshCached` a refreshed image replaces
    /// the cached one. Never throws; failures are in the report.
    static func run(_ text: String, pipeline: CommandPipeline, options: WebImageOptions,
                    context: WebImageContext) async -> LoadReport {
        let start = ContinuousClock.now
        guard let url = URL(string: text), url.scheme != nil else {
            return LoadReport(url: text, result: .failure(WebImageError(.invalidURL, "Not a URL: \(text)")),
                              partials: 0, bytes: 0, milliseconds: 0)
        }
        var partials = 0
        var final: ImageLoadResult?
        var failure: WebImageError?
        do {
            for try await result in pipeline.manager.loadImageStream(with: url, options: options, context: context) {
                if result.isFinished { final = result } else { partials += 1 }
            }
        } catch {
            failure = CommandError.webImageError(error)
        }
        let elapsed = start.duration(to: .now).milliseconds
        guard let final, failure == nil else {
            let error = failure ?? WebImageError(.badImageData, "The load of \(text) ended without a result")
            return LoadReport(url: text, result: .failure(error), partials: partials, bytes: 0, milliseconds: elapsed)
        }
        var bytes = final.data?.count ?? 0
        // Thumbnails carry no data; the recorder saw the body that was downloaded.
        if bytes == 0, final.cacheType == .none, case .loaded(_, let body)? = pipeline.recorder.outcome(for: url) {
            bytes = body
        }
        return LoadReport(url: text, result: .success(final), partials: partials, bytes: bytes, milliseconds: elapsed)
    }
}
