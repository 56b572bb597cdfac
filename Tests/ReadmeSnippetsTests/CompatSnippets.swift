// The documents' SDWebImage-style ```swift blocks (those that import WebImageCompat),
// verbatim, in a file that imports WebImageCompat and not WebImage: they compile against
// the compat target alone. Nothing here runs; ReadmeSnippetsTests checks every block is here.
import Foundation
import WebImageCompat

// GettingStarted: the callback form
func loadWithCallbacks(_ manager: ImageManager) {
    let operation = manager.loadImage(with: catURL, options: [.retryFailed, .progressiveLoad],
                                      progress: { received, expected in print(received, expected) }) { result in
        if result.isFinished, let image = result.image { show(image) }
    }
    operation.cancel()   // the completion then runs once with `cancelled` (2002)
}

// Caching: a chain of caches
func makeChainedManager() -> ImageManager {
    let local = ImageCache(namespace: "local")
    var sharedConfig = ImageCache.Config()
    sharedConfig.shouldCacheImagesInMemory = false
    let shared = ImageCache(namespace: "shared", directory: URL(fileURLWithPath: "/srv/image-cache"), config: sharedConfig)
    let chain = ImageCachesManager(caches: [local, shared])   // asked in this order; the first hit wins
    chain.promotesHits = true                                  // a hit in `shared` is copied into `local`
    return ImageManager(cache: chain, loader: ImageLoadersManager.shared)
}
