import Foundation

extension ImageCodersManager: AnimatedImageCoder {
    /// An animation decoder from the first member that decodes `data`: its own when it is
    /// an ``AnimatedImageCoder``, `nil` when `data` is a still image or that member decodes
    /// only whole images. Runs on the caller's thread; reads no pixels.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for empty or unrecognised data,
    ///   ``WebImageError/Code/unsupportedFormat`` when no member decodes the format, and
    ///   what the member throws.
    public func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        guard !data.isEmpty else { throw WebImageError.badImageData("The data is empty") }
        for coder in coders.reversed() where coder.canDecode(data) {
            guard let animated = coder as? any AnimatedImageCoder else { return nil }
            return try animated.makeAnimationDecoder(data, options: options)
        }
        throw Self.noDecoderError(for: data)
    }
}
