import Foundation
import Synchronization
import WebImage

/// A loader that forwards to another and remembers, per URL, what the last finished
/// load gave: the image and body size, or the error.
///
/// `prefetch` uses it to report each URL, since the prefetcher itself only counts.
final class LoadRecorder: ImageLoader {
    /// What one load of a URL ended with.
    enum Outcome: Sendable {
        case loaded(image: DecodedImage?, bytes: Int)
        case failed(WebImageError)
    }

    private let inner: any ImageLoader
    private let outcomes = Mutex<[URL: Outcome]>([:])

    init(_ inner: any ImageLoader) {
        self.inner = inner
    }

    /// The outcome of the last finished load of `url`, or `nil` when it was never loaded.
    func outcome(for url: URL) -> Outcome? { outcomes.withLock { $0[url] } }

    func canRequestImage(for url: URL?) -> Bool { inner.canRequestImage(for: url) }

    func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        do throws(WebImageError) {
            let response = try await inner.loadImage(with: url, options: options, context: context, observer: observer)
            outcomes.withLock { $0[url] = .loaded(image: response.image, bytes: response.data?.count ?? 0) }
            return response
        } catch {
            outcomes.withLock { $0[url] = .failed(error) }
            throw error
        }
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        inner.shouldBlockFailedURL(url, error: error)
    }
}
