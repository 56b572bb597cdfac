/// How to decode: target size, limits, frames and orientation.
///
/// The defaults decode the whole image at full size, apply EXIF orientation and
/// refuse images over 100 million pixels.
public struct ImageDecodeOptions: Sendable, Hashable {
    /// Decode to fit this size (in display pixels). `nil`, the default, decodes full size.
    /// A thumbnail never scales up: a smaller image decodes at its own size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (default), fitting inside the size,
    /// or stretch to it exactly when `false`.
    public var preserveAspectRatio: Bool = true
    /// Decode no larger than this many bytes of RGBA pixels (per frame), scaling down
    /// while keeping the aspect ratio. Never scales up. `nil`, the default, is no limit.
    public var scaleDownLimitBytes: Int?
    /// Refuse images whose header declares more pixels than this (all frames of an
    /// animation together). Checked before any pixel buffer is allocated; the error is
    /// ``WebImageError/Code/imageTooLarge``. Default 100 million.
    public var maxPixelCount: Int = 100_000_000
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool = false
    /// Turn the pixels upright according to EXIF orientation (default `true`).
    public var applyOrientation: Bool = true
    /// The scale recorded in the result (2 or 3 for `@2x`/`@3x` keys). Default 1.
    public var scale: Double = 1

    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        maxPixelCount: Int = 100_000_000,
        firstFrameOnly: Bool = false,
        applyOrientation: Bool = true,
        scale: Double = 1
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.maxPixelCount = maxPixelCount
        self.firstFrameOnly = firstFrameOnly
        self.applyOrientation = applyOrientation
        self.scale = scale
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
                w = max(1, Int((Double(w) * ratio).rounded()))
                h = max(1, Int((Double(h) * ratio).rounded()))
            } else {
                w = min(t.width, w)
                h = min(t.height, h)
            }
        }
        if let limit = scaleDownLimitBytes, limit > 0 {
            let bytes = Double(w) * Double(h) * 4
            if bytes > Double(limit) {
                let ratio = (Double(limit) / bytes).squareRoot()
                w = max(1, Int(Double(w) * ratio))
                h = max(1, Int(Double(h) * ratio))
            }
        }
        return PixelSize(width: w, height: h)
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
