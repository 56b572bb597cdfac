// The documents' SDWebImage-style ```swift blocks (those that begin `import WebImageCompat`),
// verbatim, in a file that imports WebImageCompat and not WebImage: they compile against
// the compat target alone. Nothing here runs; ReadmeSnippetsTests checks every block is here.
import WebImageCompat

// GettingStarted: the callback form
func loadWithCallbacks(_ manager: ImageManager) {
    let operation = manager.loadImage(with: catURL, options: [.retryFailed, .progressiveLoad],
                                      progress: { received, expected in print(received, expected) }) { result in
        if result.isFinished, let image = result.image { show(image) }
    }
    operation.cancel()   // the completion then runs once with `cancelled` (2002)
}
