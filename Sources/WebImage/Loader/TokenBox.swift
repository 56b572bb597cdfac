import Synchronization

/// Holds a token that may arrive after its task was already cancelled, so the async
/// bridge cancels it either way.
final class TokenBox: Sendable {
    private let state = Mutex<(token: ImageLoadToken?, cancelled: Bool)>((nil, false))

    func set(_ token: ImageLoadToken) {
        let cancelNow = state.withLock { s -> Bool in
            s.token = token
            return s.cancelled
        }
        if cancelNow { token.cancel() }
    }

    func cancel() {
        let token = state.withLock { s -> ImageLoadToken? in
            s.cancelled = true
            return s.token
        }
        token?.cancel()
    }
}
