import CAVIF
import Foundation

/// One parsed AVIF file: libavif's decoder over a private copy of the bytes, which must
/// stay put while the decoder lives (libavif reads them in place, frame by frame). The
/// copy's tracks without pictures are hidden from libavif first (``AVIFTrackFilter``), and
/// a grid whose tiles carry the alpha gets an alpha grid (``AVIFAlphaGrid``).
///
/// Parsing reads the container and the sequence's sample table only; pixels are decoded
/// by ``frame(at:)``. Not thread-safe: the eager coder uses one on one thread, and
/// ``AVIFAnimationDecoder`` keeps one behind a `Mutex`.
final class AVIFSource {
    /// Owns libavif's decoder and the bytes it reads; frees both even when parsing fails
    /// part way through ``init(data:options:)`` (where this object's own deinit would not run).
    private final class Owner {
        let decoder: UnsafeMutablePointer<avifDecoder>
        let bytes: UnsafeMutableRawBufferPointer

        init(decoder: UnsafeMutablePointer<avifDecoder>, bytes: UnsafeMutableRawBufferPointer) {
            self.decoder = decoder
            self.bytes = bytes
        }

        deinit {
            avifDecoderDestroy(decoder)
            bytes.deallocate()
        }
    }

    private let owner: Owner
    private var decoder: UnsafeMutablePointer<avifDecoder> { owner.decoder }
    /// The size of every frame, as stored (before irot/imir).
    let size: PixelSize
    /// Frames in the file: 1 for a still image.
    let frameCount: Int
    /// The orientation the `irot`/`imir` properties declare.
    let orientation: Orientation
    /// What the file says about its colours (`colr` ICC profile, else `nclx`/AV1 code
    /// points), for colour management; `nil` for sRGB or nothing declared.
    let colorSource: ColorSource?

    /// Parses `data`; checks the declared size against `options` before libavif reads it.
    ///
    /// libavif is run lenient (strict checks off, as Chromium does), on one thread: decodes
    /// already run several at once on ``DecodeQueue``.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when the size exceeds the pixel limit,
    ///   ``WebImageError/Code/unsupportedFormat`` for a feature libavif lacks.
    init(data: Data, options: ImageDecodeOptions) throws(WebImageError) {
        guard !data.isEmpty else { throw .badImageData("The AVIF data is empty") }
        if let declared = data.withUnsafeBytes({ ISOBMFFImageSize.largestDeclared(in: $0) }) {
            try options.checkPixelLimit(width: declared.width, height: declared.height)
        }
        guard let decoder = avifDecoderCreate() else { throw .badImageData("libavif could not create a decoder") }
        let alphaGrid = data.withUnsafeBytes { AVIFAlphaGrid.rewrite($0) }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count + (alphaGrid?.meta.count ?? 0), alignment: 16)
        if let alphaGrid { alphaGrid.write(data, into: bytes) } else { data.copyBytes(to: bytes) }
        AVIFTrackFilter.hideNonPictureTracks(in: bytes)
        owner = Owner(decoder: decoder, bytes: bytes)
        decoder.pointee.maxThreads = 1
        decoder.pointee.ignoreXMP = AVIF_TRUE
        decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        // dav1d refuses a frame over this before allocating it, whatever the container said.
        decoder.pointee.imageSizeLimit = UInt32(min(options.maxPixelCount, Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)))
        try Self.check(avifDecoderSetIOMemory(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count), decoder)
        try Self.check(avifDecoderParse(decoder), decoder)
        guard let image = decoder.pointee.image, decoder.pointee.imageCount > 0 else {
            throw .badImageData("The AVIF file has no image")
        }
        size = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        frameCount = Int(decoder.pointee.imageCount)
        orientation = Self.orientation(of: image.pointee)
        colorSource = Self.colorSource(of: image.pointee)
        guard size.width > 0, size.height > 0 else { throw .badImageData("The AVIF image is empty (\(size))") }
    }

    /// Display time of frame `index` in seconds (0 for a still image).
    func duration(of index: Int) -> Double {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK else { return 0 }
        return timing.duration.isFinite ? timing.duration : 0
    }

    /// Decodes frame `index` to 8-bit RGBA at ``size`` (10- and 12-bit samples are rounded,
    /// a missing alpha plane is opaque). The next frame in order costs one frame; any other
    /// is decoded from its nearest keyframe by libavif.
    func frame(at index: Int, reusing storage: consuming PixelBuffer? = nil) throws(WebImageError) -> PixelBuffer {
        if index == Int(decoder.pointee.imageIndex) + 1 {
            try Self.check(avifDecoderNextImage(decoder), decoder)
        } else {
            try Self.check(avifDecoderNthImage(decoder, UInt32(index)), decoder)
        }
        guard let image = decoder.pointee.image else { throw .badImageData("libavif returned no image") }
        guard Int(image.pointee.width) == size.width, Int(image.pointee.height) == size.height else {
            throw .badImageData("AVIF frame \(index + 1) is \(image.pointee.width)x\(image.pointee.height), not \(size)")
        }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.rowBytes = UInt32(size.width * 4)
        var result = AVIF_RESULT_OK
        let pixels = FrameStorage.make(width: size.width, height: size.height, reusing: storage) { out in
            rgb.pixels = out.baseAddress
            result = avifImageYUVToRGB(image, &rgb)
            // The storage must be fully initialized even though it is thrown away.
            if result != AVIF_RESULT_OK { out.update(repeating: 0) }
        }
        try Self.check(result, decoder)
        return pixels
    }

    /// Throws the error for a libavif result other than OK, with libavif's diagnostic.
    private static func check(_ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>) throws(WebImageError) {
        guard result != AVIF_RESULT_OK else { return }
        let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let message = "libavif: \(String(cString: avifResultToString(result)))" + (detail.isEmpty ? "" : " (\(detail))")
        switch result {
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_UNSUPPORTED_DEPTH:
            throw .unsupportedFormat(message)
        default:
            throw .badImageData(message)
        }
    }

    /// The ICC profile when there is one, else the code points unless they say sRGB.
    static func colorSource(of image: avifImage) -> ColorSource? {
        if image.icc.size > 0, let data = image.icc.data {
            return .iccProfile(Array(UnsafeBufferPointer(start: data, count: image.icc.size)))
        }
        let cicp = CICP(primaries: Int(image.colorPrimaries), transfer: Int(image.transferCharacteristics),
                        matrix: Int(image.matrixCoefficients), isFullRange: image.yuvRange == AVIF_RANGE_FULL)
        return cicp.isSRGB ? nil : .cicp(cicp)
    }

    /// The EXIF orientation equivalent to an image's `irot` (anticlockwise quarter turns)
    /// followed by `imir` (mode 0: top and bottom exchanged, 1: left and right), as
    /// browsers apply them. An EXIF orientation tag inside an AVIF is ignored, as HEIF says.
    static func orientation(of image: avifImage) -> Orientation {
        let rotates = image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0
        let mirrors = image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0
        let angle = rotates ? Int(image.irot.angle & 3) : 0
        let leftRight = image.imir.mode != 0
        switch (angle, mirrors) {
        case (0, false): return .up
        case (0, true): return leftRight ? .upMirrored : .downMirrored
        case (1, false): return .left
        case (1, true): return leftRight ? .rightMirrored : .leftMirrored
        case (2, false): return .down
        case (2, true): return leftRight ? .downMirrored : .upMirrored
        case (3, false): return .right
        default: return leftRight ? .leftMirrored : .rightMirrored
        }
    }
}
