import WebImage
import WebImageCodecs

/// Flattens onto an opaque colour: ``WebImage/ImageTransform/background(_:)``.
public struct ImageBackgroundTransformer: ImageTransformSpelling {
    public var color: RGBA
    /// A flattening onto `color` (white by default; its alpha is ignored).
    public init(color: RGBA = RGBA(r: 255, g: 255, b: 255)) {
        self.color = RGBA(r: color.r, g: color.g, b: color.b, a: 255)
    }
    public var builtIn: ImageTransform { .background(color) }
}

/// A gaussian blur (SDWebImage's `SDImageBlurTransformer`): ``WebImage/ImageTransform/blur(radius:)``.
public struct ImageBlurTransformer: ImageTransformSpelling {
    /// Standard deviation in pixels.
    public var radius: Double
    public init(radius: Double) { self.radius = radius }
    public var builtIn: ImageTransform { .blur(radius: radius) }
}

/// Pixelates in square blocks: ``WebImage/ImageTransform/pixelate(size:)``.
public struct ImagePixelatingTransformer: ImageTransformSpelling {
    public var size: Int
    public init(size: Int) { self.size = max(0, size) }
    public var builtIn: ImageTransform { .pixelate(size: size) }
}

/// Rounds corners, with an optional border (SDWebImage's `SDImageRoundCornerTransformer`):
/// ``WebImage/ImageTransform/roundCorners(radius:corners:borderWidth:borderColor:)``.
public struct ImageRoundCornerTransformer: ImageTransformSpelling {
    /// Which corners to round.
    public typealias Corners = ImageTransform.Corners
    /// Corner radius in pixels; clamped to half the shorter side.
    public var radius: Double
    /// Which corners are rounded. Default: all.
    public var corners: Corners
    /// Border width in pixels, 0 for none (the default).
    public var borderWidth: Double
    /// Border colour, blended by its alpha. Default: transparent.
    public var borderColor: RGBA
    public init(
        radius: Double, corners: Corners = .all, borderWidth: Double = 0, borderColor: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)
    ) {
        self.radius = radius
        self.corners = corners
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }
    public var builtIn: ImageTransform {
        .roundCorners(radius: radius, corners: corners, borderWidth: borderWidth, borderColor: borderColor)
    }
}

/// An unsharp mask: ``WebImage/ImageTransform/sharpen(sigma:)``.
public struct ImageSharpeningTransformer: ImageTransformSpelling {
    public var sigma: Double
    public init(sigma: Double) { self.sigma = sigma }
    public var builtIn: ImageTransform { .sharpen(sigma: sigma) }
}

/// Tints every frame (SDWebImage's `SDImageTintTransformer`): ``WebImage/ImageTransform/tint(_:)``.
public struct ImageTintTransformer: ImageTransformSpelling {
    /// The tint; its alpha is the blend strength.
    public var color: RGBA
    public init(color: RGBA) { self.color = color }
    public var builtIn: ImageTransform { .tint(color) }
}

/// Draws a watermark: ``WebImage/ImageTransform/watermark(_:opacity:placement:)``.
public struct ImageWatermarkTransformer: ImageTransformSpelling {
    public typealias Placement = ImageTransform.WatermarkPlacement
    /// The watermark, already at the size it is drawn.
    public var mark: PixelBuffer
    public var opacity: Double
    public var placement: Placement
    public init(mark: PixelBuffer, opacity: Double, placement: Placement) {
        self.mark = mark
        self.opacity = opacity
        self.placement = placement
    }
    public var builtIn: ImageTransform { .watermark(mark, opacity: opacity, placement: placement) }
}
