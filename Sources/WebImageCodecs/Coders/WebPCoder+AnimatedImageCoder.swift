import Foundation

extension WebPCoder: AnimatedImageCoder {
    /// A `WebPAnimationDecoder` for an animated WebP of two or more frames, or `nil` for
    /// a still. Reads the container and frame headers only. Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when `data` is not a readable WebP,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds the limit.
    public func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        guard canDecode(data) else { throw .badImageData("The data is not a WebP") }
        return try WebPAnimationDecoder(data: data, options: options)
    }
}
