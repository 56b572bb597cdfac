import Foundation

/// Decodes one image while its bytes arrive, returning the best partial image so far.
///
/// One decoder serves one transfer. Calls come one at a time (the downloader keeps at
/// most one decode in flight per transfer), but possibly from different threads, so
/// implementations keep their state behind a lock.
public protocol ProgressiveImageDecoder: AnyObject, Sendable {
    /// Decodes from `data`, which holds all bytes received so far (each call's data
    /// starts with the previous call's).
    ///
    /// - Returns: while `isComplete` is `false`, a partial image with
    ///   ``DecodedImage/isIncremental`` set, or `nil` when nothing can be shown yet.
    ///   When `isComplete` is `true`, the final image, equal to a one-shot decode of `data`.
    /// - Throws: ``WebImageError`` when the data is not decodable; for partial data only
    ///   when it can already be known to be bad.
    func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage?
}
