import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Reads one hop's response on its event loop (AsyncHTTPClient's delegate API): checks
/// the head, accumulates the body with the size limit and the deadline, reports
/// progress and starts partial decodes, and completes the hop's future once, with the
/// whole body or the redirect to follow. No task hop per chunk: the transfer hears of
/// the hop only when it is over.
///
/// AsyncHTTPClient calls every method on the request's event loop, one at a time; the
/// state sits behind a `Mutex` only because the delegate must be `Sendable` (the lock is
/// never contended).
final class TransferDelegate: HTTPClientResponseDelegate {
    /// How a hop ended.
    enum Outcome: Sendable {
        /// A redirect to follow (its body was read and dropped).
        case redirect(location: String, status: Int)
        /// The whole body (after any bytes kept from an earlier attempt) and its response.
        case body(Data, HTTPResponseInfo)
    }
    typealias Response = Outcome

    /// A redirect body longer than this is abandoned (its connection closes) instead of
    /// read, so the next hop does not wait for it.
    static let redirectBodyLimit = 64 * 1024

    /// The hop's future fails with this when a redirect's body was abandoned: the
    /// redirect is still followed.
    struct AbandonedRedirect: Error, Sendable {
        var location: String
        var status: Int
    }

    private enum Phase {
        case head
        case redirect(location: String, status: Int, discarded: Int)
        case body(HTTPResponseInfo, expected: Int)
    }
    private struct State {
        var phase = Phase.head
        var data = Data()
    }
    private let state = Mutex(State())
    private let transfer: DownloadTransfer
    private let downloader: ImageDownloader
    /// The URL this hop requested (the one that answers).
    private let url: URL
    private let notes: TransferAttempt
    private let deadline: NIODeadline

    init(transfer: DownloadTransfer, downloader: ImageDownloader, url: URL, notes: TransferAttempt, deadline: NIODeadline) {
        self.transfer = transfer
        self.downloader = downloader
        self.url = url
        self.notes = notes
        self.deadline = deadline
    }

    func didReceiveHead(task: HTTPClient.Task<Outcome>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        do throws(WebImageError) {
            try receiveHead(head)
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Outcome>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        do {
            try receiveBody(buffer)
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Outcome>) throws -> Outcome {
        let (phase, data) = state.withLock { ($0.phase, $0.data) }
        switch phase {
        case .head:
            throw WebImageError(.invalidDownloadResponse, "The response from \(url.redactedForLog) ended without a head")
        case .redirect(let location, let status, _):
            return .redirect(location: location, status: status)
        case .body(let info, let expected):
            if expected >= 0, data.count < expected {
                notes.noteLostMidBody(PartialBody.resumable(data, info: info))
                throw WebImageError(.invalidDownloadResponse, "The body has \(data.count) of \(expected) bytes")
            }
            downloader.reportProgress(of: transfer, received: data.count, expected: expected, force: true)
            return .body(data, info)
        }
    }

    func didReceiveError(task: HTTPClient.Task<Outcome>, _ error: any Error) {
        // A connection that broke mid-body keeps what arrived for a resumed attempt; our
        // own refusals (size, deadline) and cancellations are not breaks.
        guard !(error is WebImageError), !(error is CancellationError), !(error is AbandonedRedirect),
              (error as? HTTPClientError) != .cancelled else { return }
        let broken = state.withLock { s -> (Data, HTTPResponseInfo)? in
            if case .body(let info, _) = s.phase { return (s.data, info) }
            return nil
        }
        if let (data, info) = broken { notes.noteLostMidBody(PartialBody.resumable(data, info: info)) }
    }

    // MARK: Head and body

    private func receiveHead(_ head: HTTPResponseHead) throws(WebImageError) {
        let status = Int(head.status.code)
        let options = transfer.options
        if options.contains(.handleCookies) {
            downloader.cookieJar.store(setCookieHeaders: head.headers["Set-Cookie"], from: url)
        }
        // AsyncHTTPClient follows no redirect (see DownloadClients), so the transfer can
        // check every hop itself.
        if ImageDownloader.redirectStatuses.contains(status), let location = head.headers.first(name: "Location") {
            state.withLock { $0.phase = .redirect(location: location, status: status, discarded: 0) }
            return
        }
        var headers = HTTPHeaderFields()
        for (name, value) in head.headers { headers.add(name: name, value: value) }
        var info = HTTPResponseInfo(statusCode: status, headers: headers, url: url)
        downloader.emit(.receivedResponse(transfer.url, statusCode: info.statusCode))
        if let modifier = transfer.context.downloadResponseModifier ?? downloader.config.responseModifier {
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
        let prefix = try Self.resumedPrefix(notes.resume, info: &info)
        try downloader.check(info)
        let expected = info.expectedContentLength ?? -1
        let limit = downloader.config.maxResponseBytes
        state.withLock { s in
            s.phase = .body(info, expected: expected)
            s.data = prefix
            if expected > 0 { s.data.reserveCapacity(min(expected, limit)) }
        }
        downloader.reportProgress(of: transfer, received: prefix.count, expected: expected, force: true)
    }

    private func receiveBody(_ buffer: ByteBuffer) throws {
        let count = buffer.readableBytes
        let limit = downloader.config.maxResponseBytes
        let received = try state.withLock { s throws(any Error) -> (Int, Int, Data)? in
            switch s.phase {
            case .head:
                return nil
            case .redirect(let location, let status, let discarded):
                guard discarded + count <= Self.redirectBodyLimit else {
                    // Not worth reading: follow the redirect on another connection.
                    throw AbandonedRedirect(location: location, status: status)
                }
                s.phase = .redirect(location: location, status: status, discarded: discarded + count)
                return nil
            case .body(_, let expected):
                guard NIODeadline.now() < deadline else {
                    throw WebImageError(
                        .timedOut,
                        "Loading \(transfer.url.redactedForLog) took longer than \(downloader.config.downloadTimeout) s")
                }
                guard s.data.count + count <= limit else {
                    throw WebImageError(.responseTooLarge, "The response is larger than the limit of \(limit) bytes")
                }
                s.data.append(contentsOf: buffer.readableBytesView)
                return (s.data.count, expected, s.data)
            }
        }
        guard let (total, expected, data) = received else { return }
        WebImageMetrics.downloadBytes.increment(by: Int64(count))
        downloader.chunkArrived(of: transfer, received: total, expected: expected, data: data)
    }

    /// For a 206 answer to a resumed attempt: the kept bytes, after checking that the
    /// range starts where they end and the total is unchanged; `info` then describes the
    /// whole body (status 200, full Content-Length). Empty for any other answer.
    private static func resumedPrefix(_ resume: PartialBody?, info: inout HTTPResponseInfo) throws(WebImageError) -> Data {
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
}
