/// Helpers shared by transformers and by the code that runs them.
public enum ImageTransformers {
    /// The largest output, in pixels per frame, a built-in transformer produces; larger
    /// results make it return `nil` instead of allocating. Same as the decoders' default
    /// ``WebImageCodecs/ImageDecodeOptions/maxPixelCount`` (100 million).
    public static let maxOutputPixelCount = ImageDecodeOptions().maxPixelCount

    /// Whether `image` should be transformed under SDWebImage's rule: still images
    /// always, animated images only when `transformAnimatedImage` is set.
    public static func shouldTransform(_ image: DecodedImage, transformAnimatedImage: Bool) -> Bool {
        !image.isAnimated || transformAnimatedImage
    }

    /// Applies `transformer` to `image` the way the manager does.
    ///
    /// An animated image is returned unchanged unless `transformAnimatedImage` is `true`,
    /// in which case every frame is transformed (SDWebImage's `transformAnimatedImage`
    /// option). A still image is always transformed. Runs on the caller's thread.
    ///
    /// - Returns: The transformed image, `image` itself when the rule skips it, or `nil`
    ///   when the transformer fails.
    public static func apply(
        _ transformer: any ImageTransformer,
        to image: DecodedImage,
        forKey key: String = "",
        transformAnimatedImage: Bool = false
    ) -> DecodedImage? {
        guard shouldTransform(image, transformAnimatedImage: transformAnimatedImage) else { return image }
        return transformer.transform(image, forKey: key)
    }

    /// Whether a `width` × `height` output is non-empty and within ``maxOutputPixelCount``.
    static func isAllowedOutput(width: Int, height: Int) -> Bool {
        guard width > 0, height > 0 else { return false }
        let (n, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && n <= maxOutputPixelCount
    }
}
