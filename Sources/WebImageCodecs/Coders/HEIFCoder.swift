import CHEIF
import Foundation

/// Decodes HEIC and HEIF (HEVC, through libheif's libde265 plugin) with libheif: the
/// primary image, with alpha, turned and cropped by the file's `irot`/`imir`/`clap`
/// transforms. AV1-coded HEIF is AVIF, decoded by ``AVIFCoder``: here it fails with
/// ``WebImageError/Code/unsupportedFormat``.
///
/// 10- and 12-bit images decode to 8-bit RGBA, converted to sRGB from the `colr` ICC
/// profile or `nclx` code points (``ImageDecodeOptions/colorManagement``). libheif applies the transforms itself and
/// cannot skip the rotation without also skipping the crop (which would expose the coded
/// padding), so the pixels always come out upright, ``DecodedImage/orientation`` is `.up`,
/// and ``ImageDecodeOptions/applyOrientation`` has no effect here. A
/// thumbnail request is served from the file's embedded thumbnail when that is at least
/// as large as the size asked for (a small fraction of the decode), else from the
/// primary image, then resampled. Image sequences (`.heics`) decode to their primary
/// (still) image: libheif 1.15 reads no tracks.
///
/// Stateless and `Sendable`: call it from any thread, several calls at once. Every call
/// blocks the calling thread, so run it on a ``DecodeQueue``.
public struct HEIFCoder: ImageCoder {
    /// Creates the coder; it has no settings.
    public init() {}

    /// Whether `data` is an ISO BMFF file with an HEIC or HEIF brand.
    public func canDecode(_ data: Data) -> Bool {
        [.heic, .heif].contains(ImageFormat.detect(data))
    }

    /// Decodes the primary image into RGBA.
    ///
    /// Runs on the caller's thread; blocking. The declared size is checked against
    /// ``ImageDecodeOptions/maxPixelCount`` before libheif reads the file.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when the header exceeds the pixel limit,
    ///   ``WebImageError/Code/unsupportedFormat`` for a codec or feature libheif lacks.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard !data.isEmpty else { throw .badImageData("The HEIF data is empty") }
        let format = ImageFormat.detect(data) == .heif ? ImageFormat.heif : .heic
        if let declared = data.withUnsafeBytes({ ISOBMFFImageSize.largestDeclared(in: $0) }) {
            try options.checkPixelLimit(width: declared.width, height: declared.height)
        }
        // AV1 items are AVIF, libavif's. libheif 1.15 would hand them to its dav1d plugin,
        // which leaks on corrupt AV1 data (found by `make fuzz`); one decoder per codec is
        // also less surface for hostile files.
        if data.withUnsafeBytes({ ISOBMFFImageSize.containsItem(ofType: "av01", in: $0) }) {
            throw .unsupportedFormat("The HEIF file holds AV1 (AVIF) images, which AVIFCoder decodes")
        }
        // libheif reads the bytes in place, while parsing and again while decoding: all
        // of it happens inside one access to them.
        return try WebImageError.typed(as: .badImageData) { try data.withUnsafeBytes { raw throws(WebImageError) in
            try Self.decode(raw, format: format, options: options)
        } }
    }

    private static func decode(_ raw: UnsafeRawBufferPointer, format: ImageFormat,
                               options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard let context = heif_context_alloc() else { throw .badImageData("libheif could not create a context") }
        defer { heif_context_free(context) }
        // Decodes already run several at once on DecodeQueue: no tile threads of libheif's own.
        heif_context_set_max_decoding_threads(context, 0)
        try check(heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil))
        var handle: OpaquePointer?
        try check(heif_context_get_primary_image_handle(context, &handle))
        guard let handle else { throw .badImageData("The HEIF file has no primary image") }
        let primary = HEIFImageHandle(handle)
        let size = primary.size
        guard size.width > 0, size.height > 0 else { throw .badImageData("The HEIF image is empty (\(size))") }
        try options.checkPixelLimit(width: size.width, height: size.height)
        let shaper = FrameShaper(stored: size, orientation: .up, options: options)
        let source = primary.thumbnail(atLeast: shaper.scaledSize) ?? primary
        var pixels = shaper.shape(try source.decodeRGBA())
        if options.colorManagement == .convertToSRGB {
            ColorConverter.convertToSRGB(&pixels, from: source.colorSource ?? primary.colorSource, options: options)
        }
        return DecodedImage(pixels: pixels, format: format, scale: options.scale)
    }

    /// HEIF is decoded only.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Always throws: HEIF is decoded only.
    ///
    /// - Throws: ``WebImageError/Code/unsupportedFormat``.
    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        throw .unsupportedFormat("HEIFCoder does not encode")
    }

    /// Throws the error for a libheif result other than OK.
    static func check(_ error: heif_error) throws(WebImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = "libheif: " + (error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)")
        switch error.code {
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype, heif_error_Plugin_loading_error:
            throw .unsupportedFormat(message)
        case heif_error_Memory_allocation_error where error.subcode == heif_suberror_Security_limit_exceeded:
            throw .imageTooLarge(message)
        default:
            throw .badImageData(message)
        }
    }
}
