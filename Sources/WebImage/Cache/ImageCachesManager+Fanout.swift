#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The bookkeeping of an ``ImageCachesManager`` operation that spans several members.
/// Each type decides under its lock and returns what to do; the caller does it after
/// the lock is released, so no member or user code runs while a lock is held.
extension ImageCachesManager {
    /// Collects one answer per member, arriving in any order on any thread.
    final class MemberAnswers<Answer: Sendable>: Sendable {
        /// The first hit in member order, or that every member missed.
        enum Settled {
            case hit(index: Int, Answer)
            case allMissed
        }

        private struct State {
            var answers: [Answer?]
            var isSettled = false
        }
        private let state: Mutex<State>

        init(count: Int) {
            state = Mutex(State(answers: Array(repeating: nil, count: count)))
        }

        /// Whether ``recordFirst(_:at:isHit:)`` already returned its one decision.
        var isSettled: Bool { state.withLock { $0.isSettled } }

        /// Records member `index`'s answer; returns every answer, in member order, when
        /// this was the last one missing.
        func recordAll(_ answer: Answer, at index: Int) -> [Answer]? {
            state.withLock { s -> [Answer]? in
                s.answers[index] = answer
                let all = s.answers.compactMap { $0 }
                guard all.count == s.answers.count, !s.isSettled else { return nil }
                s.isSettled = true
                return all
            }
        }

        /// Records member `index`'s answer; returns, once, the first hit in member order
        /// as soon as every earlier member has answered with a miss, or ``Settled/allMissed``.
        func recordFirst(_ answer: Answer, at index: Int, isHit: (Answer) -> Bool) -> Settled? {
            state.withLock { s -> Settled? in
                guard !s.isSettled else { return nil }
                s.answers[index] = answer
                for (i, answer) in s.answers.enumerated() {
                    guard let answer else { return nil }  // an earlier member has not answered yet
                    if isHit(answer) {
                        s.isSettled = true
                        return .hit(index: i, answer)
                    }
                }
                s.isSettled = true
                return .allMissed
            }
        }
    }

    /// Cancel handlers run together, once; one added afterwards runs at once.
    final class CancelGroup: Sendable {
        private struct State {
            var isCancelled = false
            var handlers: [@Sendable () -> Void] = []
        }
        private let state = Mutex(State())

        func add(_ handler: @escaping @Sendable () -> Void) {
            let runNow = state.withLock { s -> Bool in
                if !s.isCancelled { s.handlers.append(handler) }
                return s.isCancelled
            }
            if runNow { handler() }
        }

        func cancel() {
            let handlers = state.withLock { s -> [@Sendable () -> Void] in
                guard !s.isCancelled else { return [] }
                s.isCancelled = true
                defer { s.handlers = [] }
                return s.handlers
            }
            for handler in handlers { handler() }
        }
    }

    /// Tells code that runs inside a call, on the caller's thread before the call
    /// returns, from code that runs later or on another thread.
    ///
    /// A query completes on the caller's thread only when a member did (the
    /// queryMemorySync and queryDiskDataSync options); a member that answers quickly on
    /// its own queue while the call is still running must still be delivered on the
    /// callback queue, so "not returned yet" alone is not enough.
    final class CallScope: Sendable {
        // Mutex is Sendable whatever it holds; pthread_t is a pointer on Darwin.
        private let thread = Mutex<pthread_t?>(pthread_self())

        /// Whether this runs inside the call.
        var isInside: Bool {
            thread.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        }

        /// Marks the call as returned.
        func end() {
            thread.withLock { $0 = nil }
        }
    }

    /// Asks `members` one at a time, in order, from `index` on, until `isHit` accepts an
    /// answer; `done` gets that answer, or `nil` when every member missed. `done` runs
    /// where the last member answered.
    static func askSerially<Answer: Sendable>(
        _ members: [any ImageCaching], from index: Int = 0,
        ask: @escaping @Sendable (any ImageCaching, @escaping @Sendable (Answer) -> Void) -> Void,
        isHit: @escaping @Sendable (Answer) -> Bool,
        done: @escaping @Sendable (Answer?) -> Void
    ) {
        guard index < members.count else {
            done(nil)
            return
        }
        ask(members[index]) { answer in
            if isHit(answer) {
                done(answer)
            } else {
                askSerially(members, from: index + 1, ask: ask, isHit: isHit, done: done)
            }
        }
    }
}
