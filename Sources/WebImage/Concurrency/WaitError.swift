/// Why a wait on one of the concurrency primitives ended without its value: what the
/// callers map to their own errors (the proxy's 503, 504 and 499).
package enum WaitError: Error, Sendable, Equatable {
    /// The waiting task was cancelled.
    case cancelled
    /// The wait's deadline passed.
    case timedOut
    /// The waiting line was full: refused at once, without waiting.
    case lineFull
}
