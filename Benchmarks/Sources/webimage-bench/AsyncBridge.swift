import Dispatch
import Synchronization

/// Runs `async` work from the synchronous `main` and blocks until it ends, so every
/// mode keeps one code path for its report. The work runs on the cooperative pool;
/// the blocked main thread is not one of its threads.
enum AsyncBridge {
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = box.withLock({ $0 }) else { throw UsageError("async work ended without a result") }
        return try result.get()
    }
}
