import Foundation

/// The downloader as the pipeline's fetcher: the body, undecoded, with its transfer's
/// redirects, retries, hop policy, queue and priority.
extension ImageDownloader: ImageFetching, ImageFetchingLoader {
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        try await fetch(url, validators: validators, options: [])
    }

    /// ``fetch(_:validators:)`` with loader options (``WebImageOptions/allowInvalidSSLCertificates``,
    /// a priority). Runs on the calling task only to join the transfer (see
    /// ``loadImage(with:options:context:observer:)``).
    ///
    /// A 304, an empty body and a status ``DownloaderConfig/acceptableStatusCodes`` lets
    /// through are outcomes, not errors; a status other than 2xx is ``FetchOutcome/status(_:)``.
    package func fetch(
        _ url: URL, validators: HTTPValidators?, options: WebImageOptions
    ) async throws(WebImageError) -> FetchOutcome {
        var options = options
        var context = WebImageContext()
        if let validators, validators.canValidate {
            options.insert(.useHTTPCache)
            context.validators = validators
        }
        let outcome = try await fetch(url, options: options, context: context, observer: ImageLoadObserver())
        // A stage or a bulk job judges a status itself (a 429's Retry-After): non-2xx is handed over.
        if case .body(_, let http?) = outcome, !(200..<300).contains(http.statusCode) { return .status(http) }
        return outcome
    }

    /// The body of `url` as a load with `options` and `context` requests it (the request
    /// modifier, cookies, validators, TLS), heard and steered through `observer`: progress,
    /// the bytes so far (``ImageLoadObserver/bodySoFar``), the token's priority and
    /// cancellation. Nothing is decoded; the decode options in `options` and `context` are
    /// not read. It joins a transfer of the same request as ``loadImage(with:options:context:observer:)``
    /// does and runs where it runs. Every status ``DownloaderConfig/acceptableStatusCodes``
    /// lets through counts as success, as it says: its body is a ``FetchOutcome/body(_:http:)``.
    package func fetch(
        _ url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> FetchOutcome {
        do {
            let response = try await loadImage(
                with: url, options: options.union(.avoidDecodeImage), context: context, observer: observer)
            return Self.outcome(response.data ?? Data(), http: response.http)
        } catch {
            if error.code == .cacheNotModified { return .notModified((error.underlyingError as? NotModifiedResponse)?.http) }
            // The downloader fails an empty body; here it is one, and the caller judges it.
            if let empty = error.underlyingError as? EmptyBodyResponse { return Self.outcome(Data(), http: empty.http) }
            throw error
        }
    }

    /// Itself, for the http and https URLs it loads.
    package func fetcher(for url: URL) -> ImageDownloader? {
        canRequestImage(for: url) ? self : nil
    }

    private static func outcome(_ data: Data, http: HTTPResponseInfo?) -> FetchOutcome {
        guard let http else { return .body(OriginalData(data: data), http: nil) }
        return .body(OriginalData(data: data, http: http), http: http)
    }
}
