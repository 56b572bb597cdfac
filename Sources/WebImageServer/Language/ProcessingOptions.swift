import WebImageCodecs

/// Everything one proxy URL asks for: imgproxy's open-source processing options, with
/// imgproxy's defaults. A value; `OptionParser` fills it from the URL's segments and
/// presets, `ProcessingPlan` turns it into geometry.
///
/// `nil` in an optional setting means "the server's default" (``ProxyConfig``).
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image meets the target box (imgproxy's `resizing_type`).
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Scale to fit inside the box, keeping the aspect ratio.
        case fit
        /// Scale to cover the box, keeping the aspect ratio, and crop the overflow.
        case fill
        /// As `fill`, but a source smaller than the box is cropped to the box's proportions
        /// instead of keeping its own.
        case fillDown = "fill-down"
        /// Stretch to the box, ignoring the aspect ratio.
        case force
        /// `fill` when the source and the box are both landscape (or square) or both
        /// portrait, else `fit`.
        case auto
    }

    /// `extend` / `extend_aspect_ratio`: grow the canvas, placing the image by gravity.
    public struct Extend: Sendable, Hashable {
        public var isEnabled = false
        public var gravity = Gravity()
    }

    /// `crop`: a region of the source, before scaling.
    public struct Crop: Sendable, Hashable {
        /// Absolute pixels when ≥ 1, a fraction of the side when < 1, the whole side when 0.
        public var width: Double
        public var height: Double
        /// The crop's own gravity; `nil` uses ``ProcessingOptions/gravity``.
        public var gravity: Gravity?
    }

    /// `trim`: remove a border of background colour.
    public struct Trim: Sendable, Hashable {
        public var threshold: Double
        /// `nil`: the colour of the top-left pixel.
        public var color: RGBA?
        public var equalHorizontal = false
        public var equalVertical = false
    }

    /// `padding`, CSS order, in CSS pixels (multiplied by dpr).
    public struct Padding: Sendable, Hashable {
        public var top = 0, right = 0, bottom = 0, left = 0
        public var isEnabled: Bool { top != 0 || right != 0 || bottom != 0 || left != 0 }
    }

    /// `watermark`.
    public struct Watermark: Sendable, Hashable {
        /// 0…1, multiplied by the server's base opacity.
        public var opacity: Double
        /// `re` tiles the watermark.
        public var position: Gravity.Kind = .center
        public var x = 0.0
        public var y = 0.0
        /// A fraction of the image the watermark is fitted into; 0 keeps its own size.
        public var scale = 0.0
    }

    // MARK: Sizing

    public var resizingType = ResizingType.fit
    /// Target width in CSS pixels; 0 derives it from the height (or keeps the source's).
    public var width = 0
    public var height = 0
    public var minWidth = 0
    public var minHeight = 0
    public var zoomX = 1.0
    public var zoomY = 1.0
    public var dpr = 1.0
    public var enlarge = false
    public var extend = Extend()
    public var extendAspectRatio = Extend()

    // MARK: Geometry

    public var gravity = Gravity()
    public var crop: Crop?
    public var trim: Trim?
    public var padding = Padding()
    /// `nil`: ``OutputSettings/autoRotate`` (the server's ``ProxyConfig/output``).
    public var autoRotate: Bool?
    /// Clockwise degrees, a multiple of 90 in 0..<360 (negative multiples are normalised).
    public var rotate = 0
    public var flipHorizontal = false
    public var flipVertical = false

    // MARK: Pixels

    /// Flatten transparency onto this colour (and prefer a format without alpha).
    public var background: RGBA?
    public var blur = 0.0
    public var sharpen = 0.0
    public var pixelate = 0
    public var watermark: Watermark?

    // MARK: Output

    /// 1…100; 0 uses ``formatQuality`` or the server's.
    public var quality = 0
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Re-encode with lower quality until the output has at most this many bytes; 0 is off.
    public var maxBytes = 0
    /// The format `format`/`f`/`ext` or the URL's extension names; `nil` chooses automatically.
    public var format: ImageFormat?
    public var stripMetadata: Bool?
    public var keepCopyright: Bool?
    public var stripColorProfile: Bool?
    /// Source formats returned as they are (`skip_processing`), besides the server's.
    public var skipProcessing: Set<ImageFormat> = []
    /// Return the source bytes unprocessed.
    public var raw = false
    public var cachebuster: String?
    /// Unix time after which the URL answers 404; `nil` or ≤ 0 never expires.
    public var expires: Int64?
    public var filename: String?
    public var returnAttachment = false
    /// `preserve_hdr` and `enforce_thumbnail`: accepted; outputs are 8-bit and the main
    /// image is always used (documented).
    public var preserveHDR = false
    public var enforceThumbnail = false

    // MARK: Security (only when the server allows them)

    public var maxSourceResolution: Int?
    public var maxSourceFileSize: Int?
    public var maxAnimationFrames: Int?
    public var maxAnimationFrameResolution: Int?
    public var maxResultDimension: Int?

    /// Presets applied, in order (`default` first when it exists).
    public var usedPresets: [String] = []

    public init() {}

    /// The largest width, height or min size accepted: keeps every later product of
    /// sizes far from overflow (imgproxy has no explicit bound; its libvips has 10 million).
    public static let maxSide = 65_535
}
