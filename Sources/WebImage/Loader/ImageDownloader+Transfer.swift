import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The body of a finished transfer and the response it came with.
struct ReceivedBody: Sendable {
    var data: Data
    var http: HTTPResponseInfo
}

extension ImageDownloader {
    /// Runs one transfer from the queue to its last callback. Runs on its own task.
    func run(_ transfer: DownloadTransfer) async {
        emit(.started(transfer.url))
        let start = ContinuousClock.now
        let outcome = await fetchWithinDeadline(transfer)
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

    /// Fetches the body, failing with ``WebImageError/Code/timedOut`` when the whole
    /// transfer takes longer than ``DownloaderConfig/downloadTimeout``.
    private func fetchWithinDeadline(_ transfer: DownloadTransfer) async -> Result<ReceivedBody, WebImageError> {
        let timeout = config.downloadTimeout
        do {
            let body = try await withThrowingTaskGroup(of: ReceivedBody?.self) { group in
                group.addTask { try await self.fetch(transfer) }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw WebImageError(.timedOut, "Loading \(transfer.url.redactedForLog) took longer than \(timeout) s")
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let body = first else { throw WebImageError.cancelled() }
                return body
            }
            return .success(body)
        } catch {
            if Task.isCancelled { return .failure(.cancelled()) }
            return .failure(DownloadErrorMapping.map(error, url: transfer.url, phase: .connecting))
        }
    }

    private func fetch(_ transfer: DownloadTransfer) async throws -> ReceivedBody {
        var request = try makeRequest(transfer)
        let client = try clients.client(insecure: transfer.options.contains(.allowInvalidSSLCertificates))
        let handleCookies = transfer.options.contains(.handleCookies)
        // One deadline for every hop: redirects do not extend the transfer's time.
        let deadline = NIODeadline.now() + .nanoseconds(DownloadClients.nanoseconds(config.downloadTimeout))
        var trail = RedirectTrail(start: request.url)
        while true {
            var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
            httpRequest.method = .GET
            for field in request.headers { httpRequest.headers.add(name: field.name, value: field.value) }

            let response: HTTPClientResponse
            do {
                response = try await client.execute(httpRequest, deadline: deadline)
            } catch {
                throw DownloadErrorMapping.map(error, url: request.url, phase: .connecting)
            }
            // AsyncHTTPClient follows no redirect (see DownloadClients), so this is the
            // URL that answered.
            let url = request.url
            if handleCookies {
                cookieJar.store(setCookieHeaders: response.headers["Set-Cookie"], from: url)
            }
            let status = Int(response.status.code)
            if Self.redirectStatuses.contains(status), let location = response.headers.first(name: "Location") {
                await discard(response.body)
                try Task.checkCancellation()
                request = try redirect(
                    from: request, to: location, status: status, trail: &trail, handleCookies: handleCookies)
                continue
            }
            var headers = HTTPHeaderFields()
            for (name, value) in response.headers { headers.add(name: name, value: value) }
            var info = HTTPResponseInfo(statusCode: status, headers: headers, url: url)
            emit(.receivedResponse(transfer.url, statusCode: info.statusCode))
            if let modifier = transfer.context.responseModifier ?? config.responseModifier {
                guard let modified = modifier(info) else {
                    throw WebImageError(
                        .invalidDownloadResponse, "The response modifier rejected the response from \(url.redactedForLog)")
                }
                info = modified
            }
            try check(info)
            let data = try await receive(response.body, info: info, transfer: transfer)
            return ReceivedBody(data: data, http: info)
        }
    }

    /// Reads and drops a redirect's body so its connection can serve the next hop; a
    /// long one is abandoned instead (AsyncHTTPClient then closes that connection).
    private func discard(_ body: HTTPClientResponse.Body) async {
        var remaining = 64 * 1024
        do {
            for try await chunk in body {
                remaining -= chunk.readableBytes
                if remaining < 0 { return }
            }
        } catch {
            // The next hop uses another connection; nothing of this one is needed.
        }
    }

    /// The request to send: default headers, credentials, validators, cookies, then the
    /// request modifier, which may veto it.
    private func makeRequest(_ transfer: DownloadTransfer) throws(WebImageError) -> ImageDownloadRequest {
        var headers = config.httpHeaders
        if let user = config.username, let password = config.password {
            headers["Authorization"] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        if transfer.options.isConditional, let validators = transfer.context.validators {
            if let etag = validators.etag { headers["If-None-Match"] = etag }
            if let date = validators.lastModified { headers["If-Modified-Since"] = date }
        }
        if transfer.options.contains(.handleCookies), let cookie = cookieJar.header(for: transfer.url) {
            headers["Cookie"] = cookie
        }
        var request = ImageDownloadRequest(url: transfer.url, headers: headers)
        if let modifier = transfer.context.requestModifier ?? config.requestModifier {
            guard let modified = modifier(request) else {
                throw WebImageError(.invalidDownloadOperation, "The request modifier vetoed the request for \(transfer.url.redactedForLog)")
            }
            guard canRequestImage(for: modified.url) else {
                throw WebImageError(.invalidURL, "The request modifier produced a URL that is not http(s): \(modified.url.redactedForLog)")
            }
            request = modified
        }
        return request
    }

    /// Checks status, content type and declared length before reading the body.
    private func check(_ info: HTTPResponseInfo) throws(WebImageError) {
        let status = info.statusCode
        if status == 304 {
            throw WebImageError(.cacheNotModified, "Not modified: \(info.url.redactedForLog)", httpStatusCode: status)
        }
        guard config.acceptableStatusCodes.contains(status) else {
            throw WebImageError(.invalidDownloadStatusCode, "HTTP \(status)", httpStatusCode: status)
        }
        guard config.accepts(mimeType: info.mimeType) else {
            throw WebImageError(
                .invalidDownloadContentType, "Content-Type \(info.mimeType ?? "(none)") is not acceptable",
                httpStatusCode: status)
        }
        if let length = info.expectedContentLength, length > config.maxResponseBytes {
            throw WebImageError(
                .responseTooLarge, "The response declares \(length) bytes; the limit is \(config.maxResponseBytes)")
        }
    }

    /// Streams the body, enforcing the size limit and reporting progress and partial images.
    private func receive(
        _ body: HTTPClientResponse.Body, info: HTTPResponseInfo, transfer: DownloadTransfer
    ) async throws -> Data {
        let expected = info.expectedContentLength ?? -1
        let limit = config.maxResponseBytes
        let interval = config.minimumProgressInterval
        var data = Data()
        if expected > 0 { data.reserveCapacity(min(expected, limit)) }
        transfer.reportProgress(received: 0, expected: expected, interval: interval, force: true)
        do {
            for try await chunk in body {
                guard data.count + chunk.readableBytes <= limit else {
                    throw WebImageError(.responseTooLarge, "The response is larger than the limit of \(limit) bytes")
                }
                data.append(contentsOf: chunk.readableBytesView)
                WebImageMetrics.downloadBytes.increment(by: Int64(chunk.readableBytes))
                transfer.reportProgress(received: data.count, expected: expected, interval: interval, force: false)
                startPartialDecode(transfer, data: data, http: info)
            }
        } catch let error as WebImageError {
            throw error
        } catch {
            throw DownloadErrorMapping.map(error, url: transfer.url, phase: .body)
        }
        if expected >= 0, data.count < expected {
            throw WebImageError(.invalidDownloadResponse, "The body has \(data.count) of \(expected) bytes")
        }
        transfer.reportProgress(received: data.count, expected: expected, interval: interval, force: true)
        return data
    }

    /// Decodes the data so far on the decode queue, unless a partial decode is in flight
    /// (then this chunk is skipped: the next one carries newer data).
    private func startPartialDecode(_ transfer: DownloadTransfer, data: Data, http: HTTPResponseInfo) {
        guard let decoder = transfer.beginPartialDecode(data: data) else { return }
        config.decodeQueue.submit {
            let image = try? decoder.decode(data, isComplete: false)
            transfer.endPartialDecode(image: image, http: http)
        } cancelled: {
            transfer.endPartialDecode(image: nil, http: http)
        }
    }

    /// Decodes the body once per distinct decode request among the callers (also those
    /// that join meanwhile) and returns the final callbacks.
    private func decodeAndComplete(_ body: ReceivedBody, _ transfer: DownloadTransfer) async -> [DownloadDelivery] {
        transfer.beginDelivering()
        if body.data.isEmpty {
            return transfer.fail(.badImageData("The response from \(body.http.url.redactedForLog) has an empty body"))
        }
        var results: [DownloadCaller.DecodeKey: Result<DecodedImage?, WebImageError>] = [:]
        while true {
            let step = transfer.complete(results: results, data: body.data, http: body.http)
            if step.missing.isEmpty { return step.deliveries }
            for (key, coder) in step.missing {
                switch key {
                case .dataOnly:
                    results[key] = .success(nil)
                case .decode(let options):
                    results[key] = await decode(body.data, options: options, coder: coder)
                }
            }
        }
    }

    private func decode(
        _ data: Data, options: ImageDecodeOptions, coder: any ImageCoder
    ) async -> Result<DecodedImage?, WebImageError> {
        do {
            let image = try await config.decodeQueue.run {
                try WebImageMetrics.time(WebImageMetrics.decodeDuration) { try coder.decode(data, options: options) }
            }
            return .success(image)
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(WebImageError(.badImageData, "Decoding failed: \(error)", underlying: SendableErrorBox(error)))
        }
    }
}
