import Foundation

/// What a transfer's events become: progress, the bytes so far and the callers' results.
/// Each runs on the thread of the event (an event loop); the scheduler decides under the
/// lock, and observers and continuations run after it is released.
extension ImageDownloader {
    /// Checks status, content type and declared length before the body is read. A 304
    /// passes: it is an answer (``FetchOutcome/notModified(_:)``), not a failure.
    func check(_ info: HTTPResponseInfo) throws(WebImageError) {
        let status = info.statusCode
        if status == 304 { return }
        guard config.acceptableStatusCodes.contains(status) else {
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(status)", httpStatusCode: status,
                                underlying: ResponseCause(http: info))
        }
        // The media type is parsed only when the config restricts it.
        guard config.acceptableContentTypes == nil || config.accepts(mimeType: info.mimeType) else {
            throw WebImageError(
                .invalidDownloadContentType, "Content-Type \(info.mimeType ?? "(none)") is not acceptable",
                httpStatusCode: status)
        }
        if let length = info.expectedContentLength, length > config.maxResponseBytes {
            throw WebImageError(
                .responseTooLarge, "The response declares \(length) bytes; the limit is \(config.maxResponseBytes)")
        }
    }

    /// Reports `received` bytes to the callers that asked for progress; at most once per
    /// ``DownloaderConfig/minimumProgressInterval`` unless `force`.
    func reportProgress(of transfer: DownloadTransfer, received: Int, expected: Int, force: Bool) {
        guard transfer.isWatched else { return }
        let observers = scheduler.withLock {
            $0.progress(of: transfer.id, received: received, interval: config.minimumProgressInterval, force: force, now: .now)
        }
        for progress in observers { progress(received, expected) }
    }

    /// A body chunk arrived (on the event loop): progress, and the bytes so far to the
    /// callers that read them (stage B's partial images).
    func chunkArrived(of transfer: DownloadTransfer, received: Int, expected: Int, data: Data) {
        guard transfer.isWatched else { return }
        let (observers, readers) = scheduler.withLock { s in
            (s.progress(of: transfer.id, received: received, interval: config.minimumProgressInterval, force: false, now: .now),
             s.bodyReaders(of: transfer.id))
        }
        for progress in observers { progress(received, expected) }
        for read in readers { read(data) }
    }

    /// A transfer's network part ended: frees its slot, starts queued transfers, emits
    /// its last events, then answers the callers. A 304 and an empty body are answers
    /// too: each caller judges them (``FetchOutcome``, ``ImageDownloader/finalResult(_:)``).
    func fetchEnded(_ transfer: DownloadTransfer, _ outcome: Result<ImageLoadResponse, WebImageError>) {
        let (end, counts) = scheduler.withLock { ($0.fetchEnded(transfer.id, outcome), ($0.running, $0.queuedCount)) }
        Self.record(running: counts.0, queued: counts.1)
        for next in end.start { next.start() }
        // Events first, so a caller that reacts to its result sees this transfer's events
        // before those of a transfer it starts.
        // `finished` means an image body arrived, as before 304s and empty bodies were answers.
        if case .success(let body) = outcome, !body.isNotModified, body.data?.isEmpty == false {
            emit(.finished(transfer.url))
        }
        emit(.stopped(transfer.url))
        for lease in end.leases { lease.attach { [weak self] in self?.releaseBody(of: transfer.id) } }
        end.deliveries.perform()
    }
}
