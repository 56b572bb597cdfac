import Foundation
import Synchronization

/// The body bytes a failed attempt kept, for the next one to resume with
/// `Range: bytes=N-` and `If-Range`.
struct PartialBody: Sendable {
    /// The bytes received so far.
    var data: Data
    /// The full length the server declared.
    var total: Int
    /// A strong `ETag`, else `Last-Modified`: sent as `If-Range`, so a changed resource
    /// answers 200 with all of itself instead of a range of something else.
    var validator: String
}

extension PartialBody {
    /// The resume point for `data` received of `info`'s body, or `nil` when the response
    /// cannot be resumed: no declared length, no validator (a weak ETag does not count,
    /// RFC 9110 §13.1.5), or nothing received yet.
    static func resumable(_ data: Data, info: HTTPResponseInfo) -> PartialBody? {
        guard !data.isEmpty, info.statusCode == 200, let total = info.expectedContentLength, data.count < total else {
            return nil
        }
        if let etag = info.headers["ETag"], !etag.hasPrefix("W/") {
            return PartialBody(data: data, total: total, validator: etag)
        }
        if let lastModified = info.headers["Last-Modified"] {
            return PartialBody(data: data, total: total, validator: lastModified)
        }
        return nil
    }
}

/// What one attempt of a transfer learned besides its result: when the server asked to
/// come back (`Retry-After`) and the bytes it got before the connection broke. Written by the attempt's task, read by the retry loop
/// after the attempt ended.
final class TransferAttempt: Sendable {
    private struct State {
        var retryAfter: TimeInterval?
        var partial: PartialBody?
        var lostMidBody = false
    }
    private let state = Mutex(State())

    /// The resume data this attempt started from, if any.
    let resume: PartialBody?

    init(resume: PartialBody?) {
        self.resume = resume
    }

    var retryAfter: TimeInterval? { state.withLock { $0.retryAfter } }
    /// What the next attempt can resume from.
    var partial: PartialBody? { state.withLock { $0.partial } }
    /// Whether the connection broke after the body began (a transient failure).
    var lostMidBody: Bool { state.withLock { $0.lostMidBody } }

    func noteRetryAfter(_ seconds: TimeInterval?) { state.withLock { $0.retryAfter = seconds } }

    /// The body broke off after `data`; `resumable` says whether the response allows
    /// resuming (a validator and a declared length).
    func noteLostMidBody(_ partial: PartialBody?) {
        state.withLock { s in
            s.lostMidBody = true
            s.partial = partial
        }
    }
}
