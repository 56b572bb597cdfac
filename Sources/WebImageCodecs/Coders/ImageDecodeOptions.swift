/// How to decode: target size, limits, frames and orientation.
///
/// The defaults decode the whole image at full size, apply EXIF orientation and
/// refuse images over 100 million pixels. Out-of-range values are clamped when set, in
/// the initializer and by assignment alike, as each property's documentation says.
public struct ImageDecodeOptions: Sendable, Hashable {
    /// Decode to fit this size (in display pixels). `nil`, the default, decodes full size.
    /// A thumbnail never scales up: a smaller image decodes at its own size.
    ///
    /// A size with a side of 0 or less becomes `nil` (no thumbnail); a side over
    /// ``maxThumbnailSide`` (65535) becomes 65535.
    public var thumbnailPixelSize: PixelSize? {
        didSet { thumbnailPixelSize = Self.clampedThumbnail(thumbnailPixelSize) }
    }
    /// With a thumbnail size: keep the aspect ratio (default), fitting inside the size,
    /// or stretch to it exactly when `false`.
    public var preserveAspectRatio: Bool = true
    /// Decode no larger than this many bytes of RGBA pixels (per frame), scaling down
    /// while keeping the aspect ratio. Never scales up. `nil`, the default, is no limit.
    ///
    /// 0 or less becomes `nil` (no limit); a limit under one pixel's 4 bytes still
    /// decodes at least 1×1.
    public var scaleDownLimitBytes: Int? {
        didSet { scaleDownLimitBytes = Self.clampedLimit(scaleDownLimitBytes) }
    }
    /// Refuse images whose header declares more pixels than this (all frames of an
    /// animation together). Checked before any pixel buffer is allocated; the error is
    /// ``WebImageError/Code/imageTooLarge``. Default 100 million.
    ///
    /// 0 or less becomes 1 (only a single pixel passes).
    public var maxPixelCount: Int = 100_000_000 { didSet { maxPixelCount = max(1, maxPixelCount) } }
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool = false
    /// Turn the pixels upright according to EXIF orientation (default `true`).
    public var applyOrientation: Bool = true
    /// The scale recorded in the result (2 or 3 for `@2x`/`@3x` keys). Default 1.
    ///
    /// NaN, infinite, zero and negative scales become 1.
    public var scale: Double = 1 { didSet { scale = Self.clampedScale(scale) } }
    /// Convert pixels tagged with an ICC profile, PNG gamma/chromaticities or CICP to sRGB
    /// (``ColorManagement/convertToSRGB``, the default), or keep the stored samples.
    public var colorManagement: ColorManagement = .convertToSRGB
    /// With a thumbnail size: how far a JPEG is shrunk while it is decoded
    /// (``ShrinkOnLoadRule/libvips``, the default, or imgproxy's rule).
    public var shrinkOnLoad: ShrinkOnLoadRule = .libvips
    /// With a thumbnail or scale-down size that decodes a baseline JPEG of a megapixel or
    /// more at 1/8, into RGBA (``JPEGCoder``) or YCbCr planes (`JPEGPlanarTranscoder`): use
    /// WebImage's scaled decoder, which gives libjpeg-turbo's pixels byte for byte without
    /// working out the coefficients they never use. Default ``scaledJPEGDecoderDefault`` (on
    /// unless `WEBIMAGE_JPEG_SCALED_DECODER=0`).
    public var usesScaledJPEGDecoder: Bool = ImageDecodeOptions.scaledJPEGDecoderDefault

    /// The largest thumbnail side: 65535 pixels, the largest JPEG or GIF dimension.
    public static let maxThumbnailSide = 65_535

    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        maxPixelCount: Int = 100_000_000,
        firstFrameOnly: Bool = false,
        applyOrientation: Bool = true,
        scale: Double = 1,
        colorManagement: ColorManagement = .convertToSRGB
    ) {
        self.thumbnailPixelSize = Self.clampedThumbnail(thumbnailPixelSize)
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = Self.clampedLimit(scaleDownLimitBytes)
        self.maxPixelCount = max(1, maxPixelCount)
        self.firstFrameOnly = firstFrameOnly
        self.applyOrientation = applyOrientation
        self.scale = Self.clampedScale(scale)
        self.colorManagement = colorManagement
    }

    /// `size` as a valid ``thumbnailPixelSize``: `nil` when a side is 0 or less, else
    /// each side at most ``maxThumbnailSide``.
    static func clampedThumbnail(_ size: PixelSize?) -> PixelSize? {
        guard let size, size.width > 0, size.height > 0 else { return nil }
        return PixelSize(width: min(size.width, maxThumbnailSide), height: min(size.height, maxThumbnailSide))
    }

    /// `limit` as a valid ``scaleDownLimitBytes``: `nil` when 0 or less.
    static func clampedLimit(_ limit: Int?) -> Int? {
        guard let limit, limit > 0 else { return nil }
        return limit
    }

    /// `scale` as a valid ``scale``: 1 unless finite and positive.
    static func clampedScale(_ scale: Double) -> Double {
        scale.isFinite && scale > 0 ? scale : 1
    }

    /// The size to produce for an image whose (display-oriented) size is `source`,
    /// after the thumbnail size and the scale-down limit. Never larger than `source`.
    ///
    /// A 5250×3450 image with a 400×300 thumbnail keeping aspect ratio gives 400×263.
    public func targetSize(for source: PixelSize) -> PixelSize {
        var w = source.width, h = source.height
        guard w > 0, h > 0 else { return source }
        if let t = thumbnailPixelSize, t.width > 0, t.height > 0, t.width < w || t.height < h {
            if preserveAspectRatio {
                let ratio = min(Double(t.width) / Double(w), Double(t.height) / Double(h))
                w = Self.scaled(w, by: ratio, rounding: .toNearestOrAwayFromZero)
                h = Self.scaled(h, by: ratio, rounding: .toNearestOrAwayFromZero)
            } else {
                w = min(t.width, w)
                h = min(t.height, h)
            }
        }
        if let limit = scaleDownLimitBytes, limit > 0 {
            let bytes = Double(w) * Double(h) * 4
            if bytes > Double(limit) {
                let ratio = (Double(limit) / bytes).squareRoot()
                w = Self.scaled(w, by: ratio, rounding: .towardZero)
                h = Self.scaled(h, by: ratio, rounding: .towardZero)
            }
        }
        return PixelSize(width: w, height: h)
    }

    /// `side × ratio` rounded, at least 1 and never more than `side`: ratios here are at
    /// most 1, and the bound keeps the conversion from trapping where `Double` rounds a
    /// side near `Int.max` up.
    private static func scaled(_ side: Int, by ratio: Double, rounding: FloatingPointRoundingRule) -> Int {
        let value = (Double(side) * ratio).rounded(rounding)
        guard value < Double(side) else { return side }
        return max(1, Int(value))
    }

    /// Throws ``WebImageError/Code/imageTooLarge`` when `width × height × frames` exceeds
    /// ``maxPixelCount`` (or overflows). Decoders call this with header values before
    /// allocating pixels.
    public func checkPixelLimit(width: Int, height: Int, frames: Int = 1) throws(WebImageError) {
        let (pixels, o1) = max(0, width).multipliedReportingOverflow(by: max(0, height))
        let (total, o2) = pixels.multipliedReportingOverflow(by: max(1, frames))
        if o1 || o2 || total > maxPixelCount {
            throw .imageTooLarge(
                "\(width)x\(height)" + (frames > 1 ? " x \(frames) frames" : "")
                    + " exceeds the limit of \(maxPixelCount) pixels")
        }
    }
}
