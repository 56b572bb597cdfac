import Synchronization

/// A fetch caller's hold on a finished transfer's body while it decodes the body itself
/// (stage B, ``ImageStage``), given to ``ImageDownloader`` in ``ImageLoadObserver/bodyLease``:
/// until it is released, a request for the same body joins that transfer and gets the body
/// at once, as while the downloader's own decodes run. So a decode that takes long never
/// causes a second request for the same URL.
///
/// ``release()`` may come before the downloader attached its end of the hold (a fetch that
/// failed or was cancelled attaches none); either order ends the hold once.
package final class BodyLease: Sendable {
    private let state = Mutex<(released: Bool, onRelease: (@Sendable () -> Void)?)>((false, nil))

    package init() {}

    /// Ends the hold; calling it again does nothing. Runs on the calling thread, briefly.
    package func release() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            defer { s = (true, nil) }
            return s.released ? nil : s.onRelease
        }
        action?()
    }

    /// The downloader's end of the hold: `action` runs at the release (now, if it came first).
    func attach(_ action: @escaping @Sendable () -> Void) {
        let releasedAlready = state.withLock { s -> Bool in
            if !s.released { s.onRelease = action }
            return s.released
        }
        if releasedAlready { action() }
    }
}
