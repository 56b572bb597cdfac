import Foundation

/// What an image is, from its bytes: format, size, orientation, frames, alpha, colour
/// profile, metadata (EXIF, IPTC, XMP) and, on request, its colours and placeholders
/// (average, dominant colours, palette, BlurHash, ThumbHash) — what imgproxy Pro's
/// `/info` endpoint answers, and `webimage info` prints.
///
/// Header facts cost no decode. Everything computed from pixels comes from one thumbnail
/// of the selected frame, decoded straight at no more than 100×100 pixels (the decoders'
/// shrink-on-load, then the resampler), so a 50-megapixel photo costs about what its
/// header and a small decode cost. Runs on the caller's thread and blocks while decoding:
/// call it on ``DecodeQueue``.
///
/// ```swift
/// var options = ImageInfo.Options()
/// options.blurHash = ImageInfo.Components(x: 4, y: 3)
/// let info = try ImageInfo(data, options: options)
/// print(info.width, info.height, info.blurHash ?? "")
/// ```
public struct ImageInfo: Sendable, Hashable {
    /// What to compute beyond the header. The defaults are imgproxy Pro's: size, format,
    /// dimensions, EXIF, IPTC and XMP on; everything computed from pixels off.
    public struct Options: Sendable, Hashable {
        public var size = true
        public var format = true
        public var dimensions = true
        public var exif = true
        /// EXIF keys are canonical tag names (`DateTimeOriginal`) instead of titles.
        public var exifCanonicalNames = false
        public var iptc = true
        public var xmp = true
        /// `pages_number`: frames (pages) in the file.
        public var pagesNumber = false
        /// `alpha`: whether the image has an alpha channel …
        public var alpha = false
        /// … and, with this, whether any pixel of the selected frame is not opaque.
        public var checkTransparency = false
        /// `icc_profile`: whether an ICC profile is embedded (not in imgproxy).
        public var iccProfile = false
        /// `palette`: at most this many colours (2…256); 0 is off.
        public var palette = 0 { didSet { palette = palette == 0 ? 0 : min(max(palette, 2), 256) } }
        public var average = false
        /// Leave fully transparent pixels out of the average (imgproxy's default).
        public var averageIgnoresTransparent = true
        public var dominantColors = false
        /// Make dominant colours nothing matched from the ones found.
        public var buildMissedColors = false
        public var blurHash: Components?
        public var thumbHash = false
        /// The frame (page) the pixel statistics are computed from, 0-based.
        public var page = 0 { didSet { page = max(0, page) } }
        /// Refuse images with more pixels than this (all frames), before decoding.
        public var maxPixelCount = 100_000_000
        /// Keep the thumbnail (``ImageInfo/thumbnail``) even when nothing else needs it.
        public var keepsThumbnail = false

        public init() {}

        /// Whether anything needs decoded pixels.
        public var needsPixels: Bool {
            checkTransparency || palette > 0 || average || dominantColors || blurHash != nil || thumbHash || keepsThumbnail
        }
    }

    /// BlurHash component counts, each 1…9.
    public struct Components: Sendable, Hashable {
        public var x: Int
        public var y: Int

        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// The side the pixel statistics are computed at (at most; smaller images as they are).
    public static let thumbnailSide = 100

    public var options: Options
    /// Bytes of the encoded image.
    public var byteCount: Int
    public var format: ImageFormat
    /// Width and height as displayed: after the EXIF orientation (or AVIF's `irot`/`imir`).
    public var width: Int
    public var height: Int
    /// The EXIF orientation (1 when there is none).
    public var orientation: Orientation
    /// Frames of an animation, pages of a multi-page file; 1 for a still image.
    public var frameCount: Int
    /// Whether the image has an alpha channel.
    public var hasAlphaChannel: Bool
    /// Whether a pixel of the selected frame is not fully opaque (with ``Options/checkTransparency``).
    public var isTransparent: Bool?
    public var metadata: ImageMetadata
    public var palette: [ColorPalette.Swatch]?
    public var averageColor: RGBA?
    public var dominantColors: DominantColors?
    public var blurHash: String?
    public var thumbHash: [UInt8]?
    /// The pixels the statistics came from (at most ``thumbnailSide`` a side); `nil` when
    /// none was needed.
    public var thumbnail: PixelBuffer?

    /// Reads `data` under `options` with `coder`.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for data that is not an image (or a
    ///   ``Options/page`` past the last frame), ``WebImageError/Code/unsupportedFormat``
    ///   for a format no coder decodes, ``WebImageError/Code/imageTooLarge`` over
    ///   ``Options/maxPixelCount``.
    public init(_ data: Data, options: Options = Options(), coder: ImageCodersManager = .shared) throws(WebImageError) {
        self.options = options
        byteCount = data.count
        let header = ImageHeader(data)
        let detected = header?.format ?? ImageFormat.detect(data)
        guard detected != .undefined else { throw .badImageData("The data is not an image format this library knows") }
        format = detected
        metadata = options.exif || options.iptc || options.xmp || options.iccProfile ? ImageMetadata(reading: data) : ImageMetadata()
        let decodeOptions = ImageDecodeOptions(
            thumbnailPixelSize: PixelSize(width: Self.thumbnailSide, height: Self.thumbnailSide),
            maxPixelCount: options.maxPixelCount, firstFrameOnly: true)

        var size = header?.displaySize
        orientation = header?.orientation ?? .up
        hasAlphaChannel = header?.mayHaveAlpha ?? false
        frameCount = 1
        if detected == .avif {
            // The header reads `ispe` only; libavif's parse gives the transform and the frames.
            let parsed = try AVIFSource(data: data, options: decodeOptions)
            let stored = parsed.size
            size = parsed.orientation.swapsDimensions ? PixelSize(width: stored.height, height: stored.width) : stored
            frameCount = parsed.frameCount
        } else if detected == .heic || detected == .heif {
            // libheif's primary image size is after its transforms (`irot`, `imir`, `clap`).
            size = data.withUnsafeBytes { ImageMetadata.heifDisplaySize($0) } ?? size
        } else if header?.isAnimated == true, let animation = try coder.makeAnimationDecoder(data, options: decodeOptions) {
            frameCount = animation.info.frameCount
        }
        guard options.page < frameCount || !options.needsPixels else {
            throw .badImageData("Page \(options.page) asked for, but the image has \(frameCount) page\(frameCount == 1 ? "" : "s")")
        }

        var pixels: PixelBuffer?
        if options.needsPixels || size == nil {
            let decoded = try Self.thumbnail(data, page: options.page, fullSize: size == nil, options: decodeOptions, coder: coder)
            pixels = decoded.pixels
            if size == nil {
                size = decoded.fullSize
                hasAlphaChannel = decoded.pixels.hasAlpha
            }
        }
        width = size?.width ?? 0
        height = size?.height ?? 0
        thumbnail = options.needsPixels ? pixels : nil
        if let pixels, options.needsPixels {
            if options.checkTransparency { isTransparent = pixels.hasAlpha }
            if options.palette > 0 { palette = ColorPalette.swatches(pixels, maxColors: options.palette) }
            if options.average { averageColor = pixels.averageColor(ignoringTransparent: options.averageIgnoresTransparent) }
            if options.dominantColors { dominantColors = DominantColors(pixels, buildMissed: options.buildMissedColors) }
            if let components = options.blurHash {
                blurHash = try BlurHash.encode(pixels, xComponents: components.x, yComponents: components.y)
            }
            if options.thumbHash { thumbHash = try ThumbHash.encode(pixels) }
        }
    }

    /// Frame `page`, upright, scaled to fit ``thumbnailSide``, and the frame's full size
    /// when `fullSize` asks for it (a format whose header this library does not read, which
    /// is then decoded at full size first).
    private static func thumbnail(
        _ data: Data, page: Int, fullSize: Bool, options: ImageDecodeOptions, coder: ImageCodersManager
    ) throws(WebImageError) -> (pixels: PixelBuffer, fullSize: PixelSize?) {
        var pixels: PixelBuffer
        var size: PixelSize?
        if page == 0 {
            var first = options
            if fullSize { first.thumbnailPixelSize = nil }
            pixels = try coder.decode(data, options: first).pixels
            size = PixelSize(width: pixels.width, height: pixels.height)
        } else {
            var whole = options
            whole.firstFrameOnly = false
            guard let animation = try AnimatedImage(data: data, options: whole, coder: coder) else {
                throw .badImageData("Page \(page) asked for, but the image has one page")
            }
            pixels = try animation.frame(at: page).pixels
            size = animation.info.canvasSize
        }
        let side = Double(thumbnailSide)
        if pixels.width > thumbnailSide || pixels.height > thumbnailSide {
            let scale = min(side / Double(pixels.width), side / Double(pixels.height))
            pixels = pixels.resampled(width: max(1, Int((Double(pixels.width) * scale).rounded())),
                                      height: max(1, Int((Double(pixels.height) * scale).rounded())))
        }
        return (pixels, size)
    }
}
