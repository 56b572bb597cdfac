import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One attempt of a transfer: the hops to the final response, its checks and its body.
extension ImageDownloader {
    /// Requests the transfer's URL, following redirects hop by hop (each hop checked by
    /// the address policy), and reads the body. Runs on the attempt's task.
    func fetch(_ transfer: DownloadTransfer, notes: TransferAttempt) async throws -> ReceivedBody {
        var request = transfer.request
        let resume = notes.resume
        if let resume {
            request.headers["Range"] = "bytes=\(resume.data.count)-"
            request.headers["If-Range"] = resume.validator
        }
        let insecure = transfer.options.contains(.allowInvalidSSLCertificates)
        let handleCookies = transfer.options.contains(.handleCookies)
        // One deadline for every hop: redirects do not extend the attempt's time.
        let deadline = NIODeadline.now() + .nanoseconds(DownloadClients.nanoseconds(config.downloadTimeout))
        var trail = RedirectTrail(start: request.url)
        while true {
            var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
            httpRequest.method = .GET
            for field in request.headers { httpRequest.headers.add(name: field.name, value: field.value) }

            // The address check comes before any connection, on every hop.
            let lease = try await clientLease(for: request.url, insecure: insecure)
            defer { lease.release() }
            let response: HTTPClientResponse
            do {
                response = try await lease.client.execute(httpRequest, deadline: deadline)
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
            if RetryPolicy.retryableStatuses.contains(info.statusCode) {
                notes.noteRetryAfter(headers["Retry-After"].flatMap { RetryPolicy.retryAfterSeconds($0) })
            }
            // 206 continues the bytes kept from the last attempt; anything else starts over.
            let prefix = try resumedPrefix(resume, info: &info)
            try check(info)
            let data = try await receive(
                response.body, info: info, prefix: prefix, transfer: transfer, notes: notes, deadline: deadline)
            return ReceivedBody(data: data, http: info)
        }
    }

    /// For a 206 answer to a resumed attempt: the kept bytes, after checking that the
    /// range starts where they end and the total is unchanged; `info` then describes the
    /// whole body (status 200, full Content-Length). Empty for any other answer.
    private func resumedPrefix(_ resume: PartialBody?, info: inout HTTPResponseInfo) throws(WebImageError) -> Data {
        guard info.statusCode == 206 else { return Data() }
        guard let resume, let range = ContentRange(info.headers["Content-Range"]),
              range.first == resume.data.count, range.total == resume.total, range.last == resume.total - 1
        else {
            throw WebImageError(
                .invalidDownloadResponse, "A partial response (206) that does not continue the bytes received",
                httpStatusCode: 206)
        }
        info.statusCode = 200
        info.headers["Content-Range"] = nil
        info.headers["Content-Length"] = String(resume.total)
        return resume.data
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

    /// Checks status, content type and declared length before reading the body.
    private func check(_ info: HTTPResponseInfo) throws(WebImageError) {
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

    /// Streams the body after `prefix` (the bytes of an earlier attempt), enforcing the
    /// size limit and reporting progress and partial images. When the connection breaks
    /// mid-body, `notes` keeps what arrived for a resumed attempt.
    private func receive(
        _ body: HTTPClientResponse.Body, info: HTTPResponseInfo, prefix: Data, transfer: DownloadTransfer,
        notes: TransferAttempt, deadline: NIODeadline
    ) async throws -> Data {
        let expected = info.expectedContentLength ?? -1
        let limit = config.maxResponseBytes
        let interval = config.minimumProgressInterval
        var data = prefix
        if expected > 0 { data.reserveCapacity(min(expected, limit)) }
        transfer.reportProgress(received: data.count, expected: expected, interval: interval, force: true)
        func lost() {
            notes.noteLostMidBody(PartialBody.resumable(data, info: info))
        }
        do {
            for try await chunk in body {
                let count = chunk.readableBytes
                guard NIODeadline.now() < deadline else {
                    throw WebImageError(
                        .timedOut, "Loading \(transfer.url.redactedForLog) took longer than \(config.downloadTimeout) s")
                }
                guard data.count + count <= limit else {
                    throw WebImageError(.responseTooLarge, "The response is larger than the limit of \(limit) bytes")
                }
                data.append(contentsOf: chunk.readableBytesView)
                WebImageMetrics.downloadBytes.increment(by: Int64(count))
                if let decoder = transfer.chunkArrived(received: data.count, expected: expected, interval: interval, data: data) {
                    startPartialDecode(transfer, decoder: decoder, data: data, http: info)
                }
            }
        } catch let error as WebImageError {
            throw error
        } catch {
            if !(error is CancellationError) { lost() }
            throw DownloadErrorMapping.map(error, url: transfer.url, phase: .body)
        }
        if expected >= 0, data.count < expected {
            lost()
            throw WebImageError(.invalidDownloadResponse, "The body has \(data.count) of \(expected) bytes")
        }
        transfer.reportProgress(received: data.count, expected: expected, interval: interval, force: true)
        return data
    }

    /// Decodes the data so far on the decode queue with the decoder the transfer handed
    /// out (none while a partial decode is in flight: the next chunk carries newer data).
    private func startPartialDecode(
        _ transfer: DownloadTransfer, decoder: any ProgressiveImageDecoder, data: Data, http: HTTPResponseInfo
    ) {
        config.decodeQueue.submit {
            let image = try? decoder.decode(data, isComplete: false)
            transfer.endPartialDecode(image: image, http: http)
        } cancelled: {
            transfer.endPartialDecode(image: nil, http: http)
        }
    }
}
