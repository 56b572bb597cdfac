import Foundation

/// The downloader as the pipeline's fetcher: the body, undecoded, with its transfer's
/// redirects, retries, hop policy, queue and priority.
extension ImageDownloader: ImageFetching {
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        try await fetch(url, validators: validators, options: [])
    }

    /// ``fetch(_:validators:)`` with loader options (``WebImageOptions/allowInvalidSSLCertificates``,
    /// a priority). Runs on the calling task only to join the transfer (see
    /// ``loadImage(with:options:context:observer:)``).
    ///
    /// A 304, an empty body and a status ``DownloaderConfig/acceptableStatusCodes`` lets
    /// through are outcomes, not errors.
    package func fetch(
        _ url: URL, validators: HTTPValidators?, options: WebImageOptions
    ) async throws(WebImageError) -> FetchOutcome {
        var options = options.union(.avoidDecodeImage)
        var context = WebImageContext()
        if let validators, validators.canValidate {
            options.insert(.useHTTPCache)
            context.validators = validators
        }
        do {
            let response = try await loadImage(with: url, options: options, context: context)
            return Self.outcome(response.data ?? Data(), http: response.http)
        } catch {
            if error.code == .cacheNotModified { return .notModified }
            // The downloader fails an empty body; here it is one, and the caller judges it.
            if let empty = error.underlyingError as? EmptyBodyResponse { return Self.outcome(Data(), http: empty.http) }
            throw error
        }
    }

    private static func outcome(_ data: Data, http: HTTPResponseInfo?) -> FetchOutcome {
        guard let http else { return .body(OriginalData(data: data), http: nil) }
        return (200..<300).contains(http.statusCode) ? .body(OriginalData(data: data, http: http), http: http) : .status(http)
    }
}
