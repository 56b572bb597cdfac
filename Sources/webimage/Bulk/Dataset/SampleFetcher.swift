import Foundation
import NIOHTTP1
import WebImage

/// Downloads one sample's bytes for a dataset job: through the ``HostGate``, with the
/// job's retries, and with img2dataset's checks and messages.
///
/// The downloader accepts every final status (its config lists them), so this type sees
/// each answer's headers: a 429 or 503 pauses its host (`Retry-After`), and the message
/// for any other status is img2dataset's `HTTP Error <code>: <reason>` (with the standard
/// reason phrase, not the server's).
///
/// **Retries.** `--retries N` tries a sample up to N more times after a transient failure
/// (a timeout, a lost or refused connection, 408, 429, 500, 502, 503, 504), each attempt
/// through the gate, so a pause asked for by the host is waited out first. img2dataset
/// retries every failure, at once; retrying a 404 gains nothing.
///
/// **Threads.** The transfer runs on the downloader's event loops; this type only awaits it.
struct SampleFetcher: Sendable {
    /// What a successful download gives.
    struct Body: Sendable {
        var data: Data
    }

    let downloader: ImageDownloader
    let gate: HostGate
    let robots: RobotsTag
    let retries: Int
    /// `--allow-file-urls`: rows may name local files (`file:`). Off by default for `fetch
    /// --file`: a list from the web must not read this machine's files into a dataset.
    /// `webimage img2dataset` turns it on, as img2dataset reads them (`--allow_file_urls=False`).
    var allowsFileURLs = false
    /// How the refusal names the setting that allows `file:` rows.
    var fileURLSetting = "--allow-file-urls"
    /// The largest body a sample may have, from a file as from the network.
    var maxBytes = DownloaderConfig.default.maxResponseBytes
    /// img2dataset's `ignore_ssl_certificate`: any certificate is accepted.
    var ignoresCertificates = false

    /// The statuses the downloader must hand over instead of failing: every final one.
    static let acceptedStatuses = Set(200..<300).union(400..<600)
    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    static let transientCodes: [WebImageError.Code] = [.timedOut, .connectionLost, .cannotConnect, .invalidDownloadResponse]

    /// The sample's bytes, or img2dataset's error message.
    func fetch(_ text: String?) async -> Result<Body, SampleFailure> {
        guard let text else { return .failure(.download("unknown url type: 'None'")) }
        // urllib strips surrounding whitespace; so do we, keeping the text as given for the record.
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // data: and file: load as urllib loads them in img2dataset (file: only when allowed).
        if trimmed.prefix(5).lowercased() == "data:" { return Self.dataURL(trimmed) }
        if trimmed.prefix(5).lowercased() == "file:" { return await fileURL(trimmed) }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            return .failure(.download("unknown url type: '\(trimmed)'"))
        }
        let hostKey = host.lowercased()
        var attempt = 0
        while true {
            if case .refused(let reason) = await gate.acquire(hostKey) { return .failure(.download(reason)) }
            let outcome: Result<ImageLoadResponse, WebImageError>
            do throws(WebImageError) {
                let options: WebImageOptions = ignoresCertificates ? [.avoidDecodeImage, .allowInvalidSSLCertificates] : [.avoidDecodeImage]
                outcome = .success(try await downloader.loadImage(with: url, options: options))
            } catch {
                outcome = .failure(error)
            }
            let result: Result<Body, SampleFailure>
            var status: Int?
            var retryAfter: Double?
            var isRetryable = false
            switch outcome {
            case .success(let response):
                let code = response.http?.statusCode ?? 200
                status = code
                if code >= 400 {
                    retryAfter = response.http?.headers["Retry-After"].flatMap { RetryPolicy.retryAfterSeconds($0) }
                    result = .failure(.download(Self.httpMessage(code)))
                    isRetryable = Self.retryableStatuses.contains(code)
                } else if robots.refuses(response.http?.headers.values(for: "X-Robots-Tag") ?? []) {
                    result = .failure(.download("Use of image disallowed by X-Robots-Tag directive"))
                } else {
                    result = .success(Body(data: response.data ?? Data()))
                }
            case .failure(let error):
                status = error.httpStatusCode
                if let empty = error.underlyingError as? EmptyBodyResponse, empty.http.statusCode >= 400 {
                    // An error status with no body (a bare 429): the status decides, as above.
                    let code = empty.http.statusCode
                    retryAfter = empty.http.headers["Retry-After"].flatMap { RetryPolicy.retryAfterSeconds($0) }
                    result = .failure(.download(Self.httpMessage(code)))
                    isRetryable = Self.retryableStatuses.contains(code)
                } else {
                    result = .failure(.download(Self.message(for: error)))
                    isRetryable = Self.transientCodes.contains(error.code)
                }
            }
            let message: String? = if case .failure(let failure) = result { failure.message } else { nil }
            gate.release(hostKey, status: status, retryAfter: retryAfter, message: message)
            if isRetryable && attempt < retries {
                attempt += 1
                continue
            }
            return result
        }
    }

    /// A `data:` URL's payload (base64 or percent-encoded), or why it is malformed.
    static func dataURL(_ text: String) -> Result<Body, SampleFailure> {
        do throws(WebImageError) {
            return .success(Body(data: try DataURLImageLoader.payload(of: text)))
        } catch {
            return .failure(.download(error.message))
        }
    }

    /// A `file:` URL's bytes, read on the blocking I/O pool; refused unless allowed.
    private func fileURL(_ text: String) async -> Result<Body, SampleFailure> {
        guard allowsFileURLs else {
            return .failure(.download("file: URLs are not loaded unless \(fileURLSetting) is given: '\(text)'"))
        }
        guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
            return .failure(.download("not a file URL: '\(text)'"))
        }
        let limit = maxBytes
        do throws(WebImageError) {
            let data = try await BlockingIOPool.shared.run { FileImageLoader.readRegularFile(url.path, limit: limit) }.get()
            return .success(Body(data: data))
        } catch {
            return .failure(.download(error.message))
        }
    }

    /// `HTTP Error 404: Not Found`, as Python's urllib words it.
    static func httpMessage(_ code: Int) -> String {
        "HTTP Error \(code): \(HTTPResponseStatus(statusCode: code).reasonPhrase)"
    }

    /// img2dataset's text where it has a fixed one (a timeout is `timed out`), else ours.
    static func message(for error: WebImageError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .invalidDownloadStatusCode: error.httpStatusCode.map(httpMessage) ?? error.message
        default: error.message
        }
    }
}

/// Why a sample failed: img2dataset's two failure statuses, with its message.
enum SampleFailure: Error, Sendable {
    /// `failed_to_download`.
    case download(String)
    /// `failed_to_resize` (decoding, the size filters, encoding).
    case resize(String)

    var message: String {
        switch self {
        case .download(let m), .resize(let m): m
        }
    }

    var status: String {
        switch self {
        case .download: "failed_to_download"
        case .resize: "failed_to_resize"
        }
    }
}
