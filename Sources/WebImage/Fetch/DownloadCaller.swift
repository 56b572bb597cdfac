import Foundation

/// One caller of a transfer: what it asked for, what it listens with, and the
/// continuation its task waits on.
struct DownloadCaller: Sendable {
    let id: UInt64
    /// Starts as the options say; ``ImageLoadToken/priority`` changes it.
    var priority: ImageLoadPriority
    let observer: ImageLoadObserver
    /// Called exactly once, with the final result; the scheduler removes the caller when
    /// it hands the completion out, so no other path can call it again.
    let completion: Completion

    /// Where a caller's final result goes.
    enum Completion: Sendable {
        /// The `async` form: the caller's task resumes (on the cooperative pool).
        case resume(CheckedContinuation<Result<ImageLoadResponse, WebImageError>, Never>)
        /// The callback form: a closure that only queues the caller's callback.
        case call(@Sendable (Result<ImageLoadResponse, WebImageError>) -> Void)
    }

    /// Whether the body's chunks matter to this caller: it observes progress or reads the
    /// bytes so far (stage B's partial images).
    var watchesBody: Bool { observer.progress != nil || observer.bodySoFar != nil }
}

/// A final result for one caller, to hand over once the downloader's lock is released.
struct DownloadDelivery: Sendable {
    let completion: DownloadCaller.Completion
    let result: Result<ImageLoadResponse, WebImageError>

    init(_ caller: DownloadCaller, _ result: Result<ImageLoadResponse, WebImageError>) {
        completion = caller.completion
        self.result = result
    }

    func perform() {
        switch completion {
        case .resume(let continuation): continuation.resume(returning: result)
        case .call(let completed): completed(result)
        }
    }
}

extension [DownloadDelivery] {
    func perform() {
        for delivery in self { delivery.perform() }
    }
}
