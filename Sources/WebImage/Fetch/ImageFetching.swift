import Foundation

/// The pipeline's loader seam: gets the encoded bytes of a URL, or answers a conditional
/// fetch with "not modified". Nothing is decoded.
///
/// ``OriginalStage`` runs one fetch per key through it. Conformers: ``ImageDownloader``
/// (http and https), the proxy's `local://` and `s3://` readers and its downloads, and the
/// bulk job's fetcher behind its host gate.
///
/// The library's `file:` and `data:` loaders (``FileImageLoader``, ``DataURLImageLoader``) are
/// fetchers too; their loads are their fetch and stage B.
///
/// A final HTTP status is an answer, given as ``FetchOutcome/status(_:)``, so a stage can
/// judge it (``OriginalStage`` serves a stale copy for a 5xx within `stale-if-error`, never
/// for a 4xx); a fetch throws when there is no answer: a transfer error, a refused hop,
/// cancellation. (The proxy's S3 reader throws its statuses: its copies keep no freshness,
/// so the stage never needs to tell them apart.)
///
/// Cancelling the calling task cancels the fetch, which then throws its cancellation
/// error. A conformer says where its work runs; none blocks the calling task.
package protocol ImageFetching<Failure>: Sendable {
    associatedtype Failure: Error

    /// The bytes of `url`.
    ///
    /// - Parameter validators: with any, a conditional fetch (`If-None-Match`,
    ///   `If-Modified-Since`) that may answer ``FetchOutcome/notModified``.
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(Failure) -> FetchOutcome
}

/// A loader whose loads ``ImageManager`` runs as a fetch and stage B (``ImageStage``) rather
/// than through ``ImageLoader/loadImage(with:options:context:observer:)``: it names the
/// fetcher for a URL, whose ``DownloaderConfig/decodeQueue`` and ``DownloaderConfig/coders``
/// stage B decodes with. Conformers: ``ImageDownloader`` (itself, for http and https) and
/// ``ImageLoadersManager`` (the member that takes the URL, when it is one). Any other loader,
/// and a URL whose fetcher is `nil`, loads through its own `loadImage`.
package protocol ImageFetchingLoader: ImageLoader {
    /// The fetcher for `url`, or `nil` when this loader loads it another way.
    func fetcher(for url: URL) -> ImageDownloader?
}

// MARK: - FetchOutcome

/// What one fetch of an original gave (``ImageFetching``).
///
/// None of these is an error: a 304 answers a conditional fetch, an empty body is a body,
/// and a status the fetcher was told to hand over (a bulk job reads a 429's `Retry-After`)
/// is its caller's to judge. ``OriginalStage`` turns what it cannot use into its error.
package enum FetchOutcome: Sendable {
    /// The bytes (a 2xx answer, or a file), possibly empty, and the response they came in
    /// (`nil` for files), whose other headers a caller may read (`X-Robots-Tag`).
    case body(OriginalData, http: HTTPResponseInfo?)
    /// 304: the validators sent still match the stored copy; with the 304's headers when it
    /// came over HTTP (its `Cache-Control` renews the copy's freshness).
    case notModified(HTTPResponseInfo?)
    /// A final status other than 2xx and 304, with its headers; its body is dropped.
    case status(HTTPResponseInfo)
}
