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
