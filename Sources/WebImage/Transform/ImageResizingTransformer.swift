/// Resizes every frame to a pixel size (SDWebImage's `SDImageResizingTransformer`).
///
/// Resampling is ``WebImageCodecs/PixelBuffer/resampled(width:height:filter:)`` with its
/// default filter, ``WebImageCodecs/ResamplingFilter/lanczos3`` (libvips' thumbnail filter,
/// colour weighted by alpha).
///
/// Key: `ImageResizingTransformer(size:WxH,mode:MODE)`, for example
/// `ImageResizingTransformer(size:400x300,mode:aspectFill)`.
public struct ImageResizingTransformer: ImageTransformer {
    /// How the image's aspect ratio meets the target size.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
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

    /// The target size in pixels (not points: `scale` is not applied).
    public var size: PixelSize
    /// How the aspect ratio is treated; see ``Mode``.
    public var mode: Mode

    /// Creates a resize to `size` pixels; `mode` defaults to ``Mode/fill``.
    public init(size: PixelSize, mode: Mode = .fill) {
        self.size = size
        self.mode = mode
    }

    public var transformerKey: String {
        TransformerKey.make("ImageResizingTransformer", ["size": size.description, "mode": mode.rawValue])
    }

    /// Returns `nil` for a non-positive target size or one above
    /// ``ImageTransformers/maxOutputPixelCount``.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        guard image.width > 0, image.height > 0,
              ImageTransformers.isAllowedOutput(width: size.width, height: size.height) else { return nil }
        let w = Double(image.width), h = Double(image.height)
        let tw = Double(size.width), th = Double(size.height)
        switch mode {
        case .fill:
            return image.mapFrames { $0.resampled(width: size.width, height: size.height) }
        case .aspectFit:
            let s = min(tw / w, th / h)
            let outW = min(size.width, max(1, Int((w * s).rounded())))
            let outH = min(size.height, max(1, Int((h * s).rounded())))
            return image.mapFrames { $0.resampled(width: outW, height: outH) }
        case .aspectFill:
            // Crop the source to the target's aspect ratio first, so only the kept
            // centre is resampled.
            let s = max(tw / w, th / h)
            let cropW = min(image.width, max(1, Int((tw / s).rounded())))
            let cropH = min(image.height, max(1, Int((th / s).rounded())))
            let rect = PixelRect(x: (image.width - cropW) / 2, y: (image.height - cropH) / 2, width: cropW, height: cropH)
            return image.mapFrames { $0.cropped(to: rect)?.resampled(width: size.width, height: size.height) }
        }
    }
}
