import Foundation

extension DecodedImage {
    /// A lazy image of `animation`: its first frame decoded now as the poster (``frames``),
    /// the rest on demand through ``animation``. Width, height and loop count are the
    /// animation's, and ``isIncremental`` says whether the file was cut short. Runs on the
    /// caller's thread and blocks for one frame; call it from ``DecodeQueue``.
    ///
    /// - Throws: what ``AnimatedImage/frame(at:)`` throws for frame 0.
    public init(animation: AnimatedImage) throws(WebImageError) {
        self.init(animation: animation, poster: try animation.frame(at: 0))
    }

    /// A lazy image of `animation` whose frame 0 is `poster` (already decoded, and
    /// transformed as the animation transforms its frames).
    package init(animation: AnimatedImage, poster: ImageFrame) {
        self.init(pixels: poster.pixels, format: animation.info.format, scale: animation.options.scale,
                  isIncremental: animation.isTruncated, orientation: animation.info.orientation)
        frames = [poster]
        loopCount = animation.info.loopCount
        self.animation = animation
    }

    /// Decodes `data` the lazy way: an animation becomes a lazy image (``init(animation:)``:
    /// the poster now, frames on demand), anything else decodes as
    /// ``ImageCoder/decode(_:options:)`` does. So does an animation when `options` asks
    /// for the first frame only, or when `coder` cannot decode frame by frame (it is not
    /// an ``AnimatedImageCoder``). Frames follow `options` (thumbnail size, orientation,
    /// limits: canvas × frames over ``ImageDecodeOptions/maxPixelCount`` is still
    /// ``WebImageError/Code/imageTooLarge``). Runs on the caller's thread and blocks: call
    /// it from ``DecodeQueue``.
    public static func decodingLazily(
        _ data: Data, options: ImageDecodeOptions, coder: any ImageCoder
    ) throws(WebImageError) -> DecodedImage {
        guard !options.firstFrameOnly, let animated = coder as? any AnimatedImageCoder,
              let first = try animated.makeAnimationDecoder(data, options: options)
        else { return try coder.decode(data, options: options) }
        return try DecodedImage(animation: AnimatedImage(data: data, options: options, coder: animated, first: first))
    }
}
