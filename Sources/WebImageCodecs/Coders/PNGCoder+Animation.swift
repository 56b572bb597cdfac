import Foundation

extension PNGCoder: AnimatedImageCoder {
    /// An `APNGAnimationDecoder` for an APNG of two or more frames, or `nil` for a still
    /// PNG. Reads the chunk structure only (CRCs included). Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when `data` is not a PNG or its
    ///   animation chunks are malformed, ``WebImageError/Code/imageTooLarge`` when canvas ×
    ///   frames exceeds the limit.
    public func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        guard canDecode(data) else { throw .badImageData("The data is not a PNG") }
        return try APNGAnimationDecoder(data: data, options: options)
    }
}
