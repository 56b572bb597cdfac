import Foundation

extension GIFCoder: AnimatedImageCoder {
    /// A `GIFAnimationDecoder` for an animated GIF, or `nil` for a GIF with one image.
    /// Reads the block structure only. Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when `data` is not a GIF,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds the limit.
    public func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        guard canDecode(data) else { throw .badImageData("The data is not a GIF") }
        return try GIFAnimationDecoder(bytes: [UInt8](data), options: options)
    }
}
