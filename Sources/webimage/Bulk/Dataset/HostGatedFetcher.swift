import Foundation
import WebImage

/// The dataset job's fetcher: the downloader's fetch, each attempt through the
/// ``HostGate``, retried after a transient failure, with img2dataset's messages.
///
/// The downloader hands over every final status (``SampleFetcher/acceptedStatuses``), so
/// each answer's headers are read here: a 429 or 503 pauses its host (`Retry-After`),
/// an error status that is still there after the retries is the outcome (the stage words
/// it as img2dataset does: `HTTP Error 404: Not Found`), and `X-Robots-Tag` may refuse
/// the image.
///
/// **Retries.** Up to ``retries`` more attempts after a failure the library's one
/// classification calls transient (``WebImage/RetryPolicy/isRetryable(_:)``: a timeout, a
/// refused or lost connection, 408, 429, 500, 502, 503, 504), each through the gate, so a
/// pause asked for by the host is waited out first. img2dataset retries every failure, at
/// once; retrying a 404 gains nothing.
///
/// **Threads.** The transfer runs on the downloader's event loops; this type only awaits it.
struct HostGatedFetcher: ImageFetching {
    let downloader: ImageDownloader
    let gate: HostGate
    let robots: RobotsTag
    let retries: Int
    /// img2dataset's `ignore_ssl_certificate`: any certificate is accepted.
    var ignoresCertificates = false

    func fetch(_ url: URL, validators: HTTPValidators?) async throws(SampleFailure) -> FetchOutcome {
        let host = url.host?.lowercased() ?? ""
        let options: WebImageOptions = ignoresCertificates ? [.allowInvalidSSLCertificates] : []
        var attempt = 0
        while true {
            if case .refused(let reason) = await gate.acquire(host) { throw .download(reason) }
            let result: Result<FetchOutcome, SampleFailure>
            var status: Int?
            var retryAfter: Double?
            var failureMessage: String?
            var isRetryable = false
            do throws(WebImageError) {
                let outcome = try await downloader.fetch(url, validators: validators, options: options)
                result = .success(outcome)
                switch outcome {
                case .status(let http):
                    status = http.statusCode
                    retryAfter = http.headers["Retry-After"].flatMap { RetryPolicy.retryAfterSeconds($0) }
                    isRetryable = RetryPolicy.retryableStatuses.contains(http.statusCode)
                    failureMessage = SampleFetcher.httpMessage(http.statusCode)
                case .body(_, let http):
                    status = http?.statusCode
                    if robots.refuses(http?.headers.values(for: "X-Robots-Tag") ?? []) {
                        failureMessage = "Use of image disallowed by X-Robots-Tag directive"
                    }
                case .notModified:
                    status = 304
                }
            } catch {
                result = .failure(.download(SampleFetcher.message(for: error)))
                status = error.httpStatusCode
                isRetryable = RetryPolicy.isRetryable(error)
                failureMessage = SampleFetcher.message(for: error)
            }
            gate.release(host, status: status, retryAfter: retryAfter, message: failureMessage)
            if isRetryable && attempt < retries {
                attempt += 1
                continue
            }
            if case .success(.body) = result, let failureMessage { throw .download(failureMessage) }
            return try result.get()
        }
    }
}
