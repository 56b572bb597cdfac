import Foundation
import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers.
final class EventBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var isFinished = false
    }
    private let state = Mutex(State())

    /// A new stream receiving every value yielded from now on.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { s -> Int? in
            if s.isFinished { return nil }
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ value: Element) {
        let subscribers = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.continuations.isEmpty ? [] : Array(s.continuations.values)
        }
        for continuation in subscribers { continuation.yield(value) }
    }

    /// Ends every stream; later subscribers get an empty stream.
    func finish() {
        let all = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.isFinished = true
            defer { s.continuations = [:] }
            return Array(s.continuations.values)
        }
        for continuation in all { continuation.finish() }
    }
}
