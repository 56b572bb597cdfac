import Foundation
import WebImage
import WebImageCodecs

/// `local://` sources as the originals stage fetches them: the file, read afresh (a
/// conditional fetch is not made: reading the file costs what checking it would).
extension LocalFileReader: ImageFetching {
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        guard case .local(let path) = try SourceLocation(url, querySeparator: querySeparator) else {
            throw .badRequest("Not a local:// source")
        }
        return .body(try await read(path), http: nil)
    }
}

/// `s3://` sources as the originals stage fetches them: one signed `GET`, conditional on
/// the stored copy's `ETag` (else its `Last-Modified`) when the stage revalidates it.
extension S3Client: ImageFetching {
    func fetch(_ url: URL, validators: HTTPValidators?) async throws(ProxyError) -> FetchOutcome {
        guard case .s3(let bucket, let key, let version) = try SourceLocation(url, querySeparator: querySeparator) else {
            throw .badRequest("Not an s3:// source")
        }
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2), so one is sent.
        let etag = validators?.etag
        switch try await get(bucket: bucket, key: key, versionID: version, ifNoneMatch: etag,
                             ifModifiedSince: etag == nil ? validators?.lastModified : nil) {
        case .notModified: return .notModified(nil)
        case .object(let original, _, _): return .body(original, http: nil)
        }
    }
}
