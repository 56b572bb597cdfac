import Foundation

/// The pipeline's loader seam: gets the encoded bytes of a URL, or answers a conditional
/// fetch with "not modified". Nothing is decoded.
///
/// ``OriginalStage`` runs one fetch per key through it. Conformers: ``ImageDownloader``
/// (http and https), the proxy's `local://` and `s3://` readers and its downloads, and the
/// bulk job's fetcher behind its host gate.
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
