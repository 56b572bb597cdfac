import Foundation
import Synchronization
import WebImage

/// The loaders of a bulk job (`file:`, `data:`, then the pipeline's downloader with its
/// retries and address policy), counting each finished body's size until the job takes it.
///
/// Bulk loads pass it as the context's loader instead of the pipeline's ``LoadRecorder``,
/// which keeps every URL's image and so grows with the list; this keeps a byte count per
/// load in flight only.
final class BulkLoader: ImageLoader {
    private let inner: ImageLoadersManager
    private let bodies = Mutex<[URL: Int]>([:])

    /// The same loaders as ``CommandPipeline``'s: with an address policy
    /// (`--block-private-addresses`) no `file:` loader, since the guard covers the network only.
    init(downloader: ImageDownloader) {
        let network: [any ImageLoader] = [DataURLImageLoader(), downloader]
        let allowsFiles = downloader.config.hopPolicy.addresses == nil
        inner = ImageLoadersManager(loaders: allowsFiles ? [FileImageLoader()] + network : network)
        // The command line's own inputs: file: is as trusted as the rest of them.
        if allowsFiles { inner.allowedSchemes.insert(.file) }
    }

    /// The body size of the last finished load of `url`, forgotten once taken.
    func takeBytes(for url: URL) -> Int? { bodies.withLock { $0.removeValue(forKey: url) } }

    func canRequestImage(for url: URL?) -> Bool { inner.canRequestImage(for: url) }

    func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        let response = try await inner.loadImage(with: url, options: options, context: context, observer: observer)
        let bytes = response.data?.count ?? 0
        bodies.withLock { $0[url] = bytes }
        return response
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        inner.shouldBlockFailedURL(url, error: error)
    }
}
