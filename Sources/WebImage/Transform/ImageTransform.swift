/// A built-in transform as one value: resize, crop, rotate, blur, round corners and the
/// rest, made by the static functions below (for example `.resize(to:mode:)`), run by
/// ``ImageManager`` (``WebImageContext/imageTransformer``) and by the image proxy.
///
/// This is WebImage's own spelling of the built-ins. SDWebImage's (`ImageResizingTransformer`,
/// `ImageBlurTransformer`, …) are in WebImageCompat and make these same values, with the
/// same ``transformerKey``.
///
/// Keys keep the names those types gave them (`ImageResizingTransformer(size:400x300,mode:aspectFill)`),
/// so results cached by earlier releases stay valid; the format is in ``ImageTransformer``.
///
/// ``transform(_:forKey:)`` runs on the caller's thread, CPU-bound, and may run on several
/// threads at once: a transform holds no state.
public struct ImageTransform: ImageTransformer {
    /// How a resize meets the target size's aspect ratio.
    public enum ResizeMode: String, Sendable, Hashable, CaseIterable {
        /// Stretch to exactly the target size, ignoring the aspect ratio.
        case fill
        /// Scale to the largest size that fits inside the target, keeping the aspect ratio.
        /// The result is that size (for example 400×200 for a 2:1 image into 400×300),
        /// not padded to the target.
        case aspectFit
        /// Scale to the smallest size that covers the target, keeping the aspect ratio,
        /// and crop the centre: the result is exactly the target size.
        case aspectFill
    }

    /// Which corners ``roundCorners(radius:corners:borderWidth:borderColor:)`` rounds.
    public struct Corners: OptionSet, Sendable, Hashable {
        /// Bit 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right.
        public let rawValue: UInt8
        /// Creates a set from its bits; see ``rawValue``.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The top-left corner.
        public static let topLeft = Corners(rawValue: 1 << 0)
        /// The top-right corner.
        public static let topRight = Corners(rawValue: 1 << 1)
        /// The bottom-left corner.
        public static let bottomLeft = Corners(rawValue: 1 << 2)
        /// The bottom-right corner.
        public static let bottomRight = Corners(rawValue: 1 << 3)
        /// All four corners.
        public static let all: Corners = [.topLeft, .topRight, .bottomLeft, .bottomRight]

        /// The form used in keys: `all`, `none` or names joined by `+`.
        var keyDescription: String {
            if self.isSuperset(of: .all) { return "all" }
            let names = [(Corners.topLeft, "topLeft"), (.topRight, "topRight"),
                         (.bottomLeft, "bottomLeft"), (.bottomRight, "bottomRight")]
                .filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "none" : names.joined(separator: "+")
        }
    }

    /// Where ``watermark(_:opacity:placement:)`` draws its mark.
    public enum WatermarkPlacement: Sendable, Hashable {
        /// The watermark's top-left corner at these pixel coordinates (may be outside).
        case at(x: Int, y: Int)
        /// Tiled, with this much space between tiles.
        case tiled(spacingX: Int, spacingY: Int)
    }

    public let transformerKey: String
    private let body: @Sendable (DecodedImage, String) -> DecodedImage?

    init(key: String, body: @escaping @Sendable (DecodedImage, String) -> DecodedImage?) {
        self.transformerKey = key
        self.body = body
    }

    /// A transform of every frame by `body`, under `key`.
    static func frames(_ key: String, _ body: @escaping @Sendable (PixelBuffer) -> PixelBuffer?) -> ImageTransform {
        ImageTransform(key: key) { image, _ in image.mapFrames(body) }
    }

    /// The transformed image, or `nil` when the transform cannot apply (each built-in says when).
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        body(image, key)
    }

    /// Several transforms in order (SDWebImage's `SDImagePipelineTransformer`): each
    /// member gets `key`, and the first that returns `nil` ends it with `nil`.
    ///
    /// Key: the members' keys joined with `-`; an empty pipeline has the key `""` and
    /// returns the image unchanged.
    public static func pipeline(_ transformers: [any ImageTransformer]) -> ImageTransform {
        ImageTransform(key: transformers.map(\.transformerKey).joined(separator: "-")) { image, key in
            var current = image
            for transformer in transformers {
                guard let next = transformer.transform(current, forKey: key) else { return nil }
                current = next
            }
            return current
        }
    }
}

/// The rule and the limit every transform runs under.
extension ImageTransform {
    /// The largest output, in pixels per frame, a built-in transformer produces; larger
    /// results make it return `nil` instead of allocating. Same as the decoders' default
    /// ``WebImageCodecs/ImageDecodeOptions/maxPixelCount`` (100 million).
    public static let maxOutputPixelCount = ImageDecodeOptions().maxPixelCount

    /// Whether `image` should be transformed under SDWebImage's rule: still images
    /// always, animated images only when `transformAnimatedImage` is set.
    public static func shouldTransform(_ image: DecodedImage, transformAnimatedImage: Bool) -> Bool {
        !image.isAnimated || transformAnimatedImage
    }

    /// Applies any `transformer` to `image` the way the manager does.
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
