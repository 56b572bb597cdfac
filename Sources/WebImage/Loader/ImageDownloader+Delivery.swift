import Foundation

/// What a transfer's events become: progress, partial images, the final decodes and
/// the callers' results. Each runs on the thread of the event (an event loop for the
/// network, a decode-queue thread for decodes); the scheduler decides under the lock,
/// and observers, coders and continuations run after it is released.
extension ImageDownloader {
    /// Checks status, content type and declared length before the body is read.
    func check(_ info: HTTPResponseInfo) throws(WebImageError) {
        let status = info.statusCode
        if status == 304 {
            throw WebImageError(
                .cacheNotModified, "Not modified: \(info.url.redactedForLog)", httpStatusCode: status,
                underlying: NotModifiedResponse(http: info))
        }
        guard config.acceptableStatusCodes.contains(status) else {
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(status)", httpStatusCode: status)
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

    /// A body chunk arrived (on the event loop): progress, the bytes so far to the callers
    /// that read them, and a partial decode of them when a caller wants partial images and
    /// none is running.
    func chunkArrived(of transfer: DownloadTransfer, received: Int, expected: Int, data: Data, http: HTTPResponseInfo) {
        guard transfer.isWatched else { return }
        let (observers, readers, claim) = scheduler.withLock { s in
            (s.progress(of: transfer.id, received: received, interval: config.minimumProgressInterval, force: false, now: .now),
             s.bodyReaders(of: transfer.id), s.claimPartialDecode(of: transfer.id))
        }
        for progress in observers { progress(received, expected) }
        for read in readers { read(data) }
        guard let claim else { return }
        config.decodeQueue.submit { [self] in
            // The coder is asked here, on the decode queue and outside any lock.
            var decoder = claim.decoder
            if decoder == nil, let coder = claim.coder as? any ProgressiveImageCoder, coder.canDecodeIncrementally(data) {
                decoder = coder.makeIncrementalDecoder(options: claim.options)
            }
            let image = try? decoder?.decode(data, isComplete: false)
            let listeners = scheduler.withLock { $0.endPartialDecode(of: transfer.id, decoder: decoder, image: image) }
            guard let image else { return }
            let partial = ImageLoadResponse(url: transfer.url, image: image, data: nil, isFinished: false, http: http)
            for listener in listeners { listener(partial) }
        } cancelled: { [self] in
            _ = scheduler.withLock { $0.endPartialDecode(of: transfer.id, decoder: nil, image: nil) }
        }
    }

    /// A transfer's network part ended: frees its slot, starts queued transfers, emits
    /// its last events, then resumes the callers (data-only ones with the body) and
    /// queues one decode per distinct decode request.
    func fetchEnded(_ transfer: DownloadTransfer, _ outcome: Result<ImageLoadResponse, WebImageError>) {
        var outcome = outcome
        if case .success(let body) = outcome, body.data?.isEmpty != false {
            let message = "The response from \(body.http?.url.redactedForLog ?? transfer.url.redactedForLog) has an empty body"
            if let http = body.http {
                // The status and headers stay readable: a bulk job pauses a host on an empty 429.
                outcome = .failure(WebImageError(
                    .badImageData, message, httpStatusCode: http.statusCode, underlying: EmptyBodyResponse(http: http)))
            } else {
                outcome = .failure(.badImageData(message))
            }
        }
        let (end, counts) = scheduler.withLock { ($0.fetchEnded(transfer.id, outcome), ($0.running, $0.queuedCount)) }
        Self.record(running: counts.0, queued: counts.1)
        for next in end.start { next.start() }
        // Events first, so a caller that reacts to its result sees this transfer's events
        // before those of a transfer it starts.
        if case .success = outcome { emit(.finished(transfer.url)) }
        emit(.stopped(transfer.url))
        for lease in end.leases { lease.attach { [weak self] in self?.releaseBody(of: transfer.id) } }
        end.deliveries.perform()
        guard case .success(let body) = outcome, let data = body.data else { return }
        for (key, coder) in end.decodes { runDecode(key, coder: coder, of: transfer, data: data) }
    }

    /// Decodes `transfer`'s body for the callers that asked for `key`, on the decode queue.
    func runDecode(_ key: DownloadCaller.DecodeKey, coder: any ImageCoder, of transfer: DownloadTransfer, data: Data) {
        guard case .decode(let options, let lazy) = key else { return }
        config.decodeQueue.submit { [self] in
            let result = DecodeQueue.decodeNow(data, options: options, lazy: lazy, coder: coder)
            scheduler.withLock { $0.decoded(key, of: transfer.id, result: result) }.perform()
        } cancelled: { [self] in
            scheduler.withLock { $0.decoded(key, of: transfer.id, result: .failure(.cancelled())) }.perform()
        }
    }
}
