import Foundation

extension AVIFCoder: AnimatedImageCoder {
    /// An `AVIFAnimationDecoder` for an image sequence of two or more frames, or `nil` for
    /// a still AVIF. Parses the container only. Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when `data` is not a readable AVIF,
    ///   ``WebImageError/Code/imageTooLarge`` when frame size × frames exceeds the limit.
    public func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        guard canDecode(data) else { throw .badImageData("The data is not an AVIF") }
        return try AVIFAnimationDecoder(data: data, options: options)
    }
}
