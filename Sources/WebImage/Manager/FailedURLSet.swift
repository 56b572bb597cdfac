import Foundation
import Synchronization

/// The URLs whose load failed in a way the loader calls permanent: SDWebImage's
/// `failedURLs`. Loads of them fail with ``WebImageError/Code/blackListed`` without
/// touching the network unless ``WebImageOptions/retryFailed`` is set. Thread-safe.
final class FailedURLSet: Sendable {
    private let urls = Mutex<Set<URL>>([])

    func contains(_ url: URL) -> Bool { urls.withLock { $0.contains(url) } }

    func insert(_ url: URL) { urls.withLock { _ = $0.insert(url) } }

    func remove(_ url: URL) { urls.withLock { _ = $0.remove(url) } }

    func removeAll() { urls.withLock { $0.removeAll() } }
}
