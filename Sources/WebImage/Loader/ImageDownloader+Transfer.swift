import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The body of a finished transfer and the response it came with.
struct ReceivedBody: Sendable {
    var data: Data
    var http: HTTPResponseInfo
    /// Attempts it took (1 when the first one succeeded).
    var attempts = 1
}

extension ImageDownloader {
    /// Runs one transfer from the queue to its last callback. Runs on its own task.
    func run(_ transfer: DownloadTransfer) async {
        emit(.started(transfer.url))
        let start = ContinuousClock.now
        let outcome = await fetchWithRetries(transfer)
        WebImageMetrics.record(WebImageMetrics.downloadDuration, since: start)
        state.withLock { s in
            s.running -= 1
            startQueued(&s)
        }
        let deliveries: [DownloadDelivery]
        switch outcome {
        case .success(let body):
            deliveries = await decodeAndComplete(body, transfer)
        case .failure(let error):
            deliveries = transfer.fail(error)
        }
        state.withLock { s in
            if s.transfers[transfer.key] === transfer { s.transfers[transfer.key] = nil }
            s.tasks[transfer.id] = nil
        }
        // Events first, so a caller that reacts to its result sees this transfer's
        // events before those of a transfer it starts.
        if case .success = outcome { emit(.finished(transfer.url)) }
        emit(.stopped(transfer.url))
        for delivery in deliveries { delivery.perform() }
    }

    /// Attempts the transfer until it succeeds or its ``RetryPolicy`` says stop: a
    /// permanent failure, the last attempt, or the next retry would start past the total
    /// budget. A body cut off mid-way resumes from the bytes received.
    private func fetchWithRetries(_ transfer: DownloadTransfer) async -> Result<ReceivedBody, WebImageError> {
        let policy = transfer.context.retryPolicy ?? config.retryPolicy
        let start = ContinuousClock.now
        var resume: PartialBody?
        var attempt = 0
        while true {
            attempt += 1
            let notes = TransferAttempt(resume: resume)
            var result = await fetchWithinDeadline(transfer, notes: notes)
            if case .success(var body) = result {
                body.attempts = attempt
                body.http.attempts = attempt
                return .success(body)
            }
            guard case .failure(let error) = result, error.code != .cancelled, !Task.isCancelled,
                  RetryPolicy.isRetryable(error) || notes.lostMidBody else { return result }
            guard attempt < policy.maxAttempts else { return .failure(Self.noting(error, attempts: attempt)) }
            let delay = policy.delay(beforeRetry: attempt, retryAfter: notes.retryAfter)
            guard start.duration(to: .now) + .seconds(delay) <= .seconds(policy.totalBudget) else {
                return .failure(Self.noting(error, attempts: attempt, why: "the retry budget of \(policy.totalBudget) s is spent"))
            }
            // A failure before the body began keeps the older resume point.
            if let partial = notes.partial { resume = partial } else if notes.lostMidBody { resume = nil }
            Self.logger.debug("Retrying \(transfer.url.redactedForLog) in \(delay) s after: \(error)")
            WebImageMetrics.downloadRetries.increment()
            do {
                try await Task.sleep(for: .seconds(delay))
            } catch {
                result = .failure(.cancelled())
                return result
            }
        }
    }

    /// `error` with the attempt count in its message.
    private static func noting(_ error: WebImageError, attempts: Int, why: String? = nil) -> WebImageError {
        guard attempts > 1 || why != nil else { return error }
        var noted = error
        noted.message += " (after \(attempts) attempt\(attempts == 1 ? "" : "s")\(why.map { "; \($0)" } ?? ""))"
        return noted
    }

    /// One attempt, failing with ``WebImageError/Code/timedOut`` when it takes longer
    /// than ``DownloaderConfig/downloadTimeout``.
    ///
    /// The deadline needs no timer task of its own (a transfer-only profile showed the
    /// sleeping child task and its dispatch timer among the costs per transfer): the HTTP
    /// client's deadline bounds each hop until its response head, its read timeout (the
    /// same number of seconds) bounds a stalled body, and the body loop checks the
    /// deadline at every chunk, so a trickling body ends at the first chunk past it.
    private func fetchWithinDeadline(
        _ transfer: DownloadTransfer, notes: TransferAttempt
    ) async -> Result<ReceivedBody, WebImageError> {
        do {
            return .success(try await fetch(transfer, notes: notes))
        } catch {
            if Task.isCancelled { return .failure(.cancelled()) }
            return .failure(DownloadErrorMapping.map(error, url: transfer.url, phase: .connecting))
        }
    }

    /// Decodes the body once per distinct decode request among the callers (also those
    /// that join meanwhile) and returns the final callbacks.
    private func decodeAndComplete(_ body: ReceivedBody, _ transfer: DownloadTransfer) async -> [DownloadDelivery] {
        transfer.beginDelivering()
        if body.data.isEmpty {
            return transfer.fail(WebImageError(
                .badImageData, "The response from \(body.http.url.redactedForLog) has an empty body",
                httpStatusCode: body.http.statusCode, underlying: EmptyBodyResponse(http: body.http)))
        }
        var results: [DownloadCaller.DecodeKey: Result<DecodedImage?, WebImageError>] = [:]
        while true {
            let step = transfer.complete(results: results, data: body.data, http: body.http, attempts: body.attempts)
            if step.missing.isEmpty { return step.deliveries }
            for (key, coder) in step.missing {
                switch key {
                case .dataOnly:
                    results[key] = .success(nil)
                case .decode(let options, let lazy):
                    results[key] = await decode(body.data, options: options, lazy: lazy, coder: coder)
                }
            }
        }
    }

    private func decode(
        _ data: Data, options: ImageDecodeOptions, lazy: Bool, coder: any ImageCoder
    ) async -> Result<DecodedImage?, WebImageError> {
        do {
            let image = try await config.decodeQueue.run {
                try WebImageMetrics.time(WebImageMetrics.decodeDuration) {
                    lazy ? try DecodedImage.decodingLazily(data, options: options, coder: coder)
                        : try coder.decode(data, options: options)
                }
            }
            return .success(image)
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(WebImageError(.badImageData, "Decoding failed: \(error)", underlying: SendableErrorBox(error)))
        }
    }
}
