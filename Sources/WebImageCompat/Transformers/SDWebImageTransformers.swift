import WebImage
import WebImageCodecs

/// SDWebImage's transformer types, each a spelling of one ``WebImage/ImageTransform``
/// built-in: its stored properties are SDWebImage's, its key and pixels are the
/// built-in's (the keys name these types, so either spelling finds the other's cached
/// results). Like the built-ins, ``transform(_:forKey:)`` runs on the caller's thread.
public protocol ImageTransformSpelling: ImageTransformer {
    /// The built-in this value spells.
    var builtIn: ImageTransform { get }
}

extension ImageTransformSpelling {
    public var transformerKey: String { builtIn.transformerKey }
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        builtIn.transform(image, forKey: key)
    }
}

/// Resizes every frame (SDWebImage's `SDImageResizingTransformer`): ``WebImage/ImageTransform/resize(to:mode:)``.
public struct ImageResizingTransformer: ImageTransformSpelling {
    /// How the aspect ratio meets the target size.
    public typealias Mode = ImageTransform.ResizeMode
    /// The target size in pixels (not points: `scale` is not applied).
    public var size: PixelSize
    /// How the aspect ratio is treated; see ``Mode``.
    public var mode: Mode
    /// A resize to `size` pixels; `mode` defaults to `.fill`.
    public init(size: PixelSize, mode: Mode = .fill) {
        self.size = size
        self.mode = mode
    }
    public var builtIn: ImageTransform { .resize(to: size, mode: mode) }
}

/// Crops every frame (SDWebImage's `SDImageCroppingTransformer`): ``WebImage/ImageTransform/crop(to:)``.
public struct ImageCroppingTransformer: ImageTransformSpelling {
    /// The region to keep, in pixels of the source image.
    public var rect: PixelRect
    /// A crop to `rect` (source pixels, clipped to the image).
    public init(rect: PixelRect) { self.rect = rect }
    public var builtIn: ImageTransform { .crop(to: rect) }
}

/// Crops around the most salient region: ``WebImage/ImageTransform/smartCrop(to:)``.
public struct ImageSmartCroppingTransformer: ImageTransformSpelling {
    public var size: PixelSize
    public init(size: PixelSize) { self.size = size }
    public var builtIn: ImageTransform { .smartCrop(to: size) }
}

/// Grows the canvas: ``WebImage/ImageTransform/extend(top:right:bottom:left:color:)``.
public struct ImageExtendingTransformer: ImageTransformSpelling {
    public var top: Int
    public var right: Int
    public var bottom: Int
    public var left: Int
    /// The new area's colour; transparent by default.
    public var color: RGBA
    /// An extension by the given insets (negative ones count as 0).
    public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)) {
        (self.top, self.right, self.bottom, self.left) = (max(0, top), max(0, right), max(0, bottom), max(0, left))
        self.color = color
    }
    public var builtIn: ImageTransform { .extend(top: top, right: right, bottom: bottom, left: left, color: color) }
}

/// Mirrors every frame (SDWebImage's `SDImageFlippingTransformer`): ``WebImage/ImageTransform/flip(horizontal:vertical:)``.
public struct ImageFlippingTransformer: ImageTransformSpelling {
    /// Swap left and right.
    public var horizontal: Bool
    /// Swap top and bottom.
    public var vertical: Bool
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
    public var builtIn: ImageTransform { .flip(horizontal: horizontal, vertical: vertical) }
}

/// Rotates every frame (SDWebImage's `SDImageRotationTransformer`): ``WebImage/ImageTransform/rotate(degrees:fitSize:)``.
public struct ImageRotationTransformer: ImageTransformSpelling {
    /// The angle in degrees, counter-clockwise.
    public var angle: Double
    /// `true`: the canvas grows to the rotated bounding box; `false`: it keeps its size.
    public var fitSize: Bool
    public init(angle: Double, fitSize: Bool = true) {
        self.angle = angle
        self.fitSize = fitSize
    }
    public var builtIn: ImageTransform { .rotate(degrees: angle, fitSize: fitSize) }
}

/// Cuts a background border off: ``WebImage/ImageTransform/trim(threshold:color:equalHorizontal:equalVertical:)``.
public struct ImageTrimmingTransformer: ImageTransformSpelling {
    public var threshold: Double
    /// The background colour; `nil` takes the top-left pixel's.
    public var color: RGBA?
    public var equalHorizontal: Bool
    public var equalVertical: Bool
    public init(threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
        self.threshold = threshold
        self.color = color
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }
    /// The window kept of an image of `width`×`height` whose foreground is `bounds`.
    public func window(for bounds: PixelRect, width: Int, height: Int) -> PixelRect {
        ImageTransform.trimWindow(bounds, width: width, height: height, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }
    public var builtIn: ImageTransform {
        .trim(threshold: threshold, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }
}

/// Several transformers in order (SDWebImage's `SDImagePipelineTransformer`): ``WebImage/ImageTransform/pipeline(_:)``.
public struct ImagePipelineTransformer: ImageTransformSpelling {
    /// The transformers, applied first to last.
    public var transformers: [any ImageTransformer]
    public init(_ transformers: [any ImageTransformer]) { self.transformers = transformers }
    public var builtIn: ImageTransform { .pipeline(transformers) }
}
