import Foundation

/// Decodes and encodes one family of image formats.
///
/// Coders are called from the decode executor, several at once, so they keep no
/// mutable state between calls. Errors thrown are ``WebImageError`` values:
/// ``WebImageError/Code/badImageData`` for corrupt, truncated or empty data,
/// ``WebImageError/Code/imageTooLarge`` when the header exceeds the pixel limit,
/// ``WebImageError/Code/unsupportedFormat`` for a format or feature this coder lacks.
public protocol ImageCoder: Sendable {
    /// Whether this coder can decode `data` (normally by its signature alone).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data` into RGBA frames.
    func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage
    /// Whether this coder can produce `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data
}

/// A coder that can also decode data while it is still arriving.
public protocol ProgressiveImageCoder: ImageCoder {
    /// Whether partial `data` (at least its first bytes) can be decoded incrementally.
    func canDecodeIncrementally(_ data: Data) -> Bool
    /// A new decoder for one transfer.
    func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder
}
