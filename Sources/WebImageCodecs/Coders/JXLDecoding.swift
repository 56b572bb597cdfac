import CJXL
import Foundation

/// One run of libjxl's event loop over a complete file: the frames as stored (before
/// orientation and resampling), with what the headers said.
///
/// Owns the decoder and the frame buffer libjxl writes into, which must stay put between
/// `JxlDecoderProcessInput` calls. Used once, on one thread.
final class JXLDecoding {
    /// What a run produced.
    struct Result {
        var size: PixelSize
        var orientation: Orientation
        var frames: [ImageFrame]
        var loopCount: Int
        /// Whether the file ended after some frames but before the last one.
        var isTruncated = false
        /// The ICC profile of the samples when libjxl could not render them to sRGB.
        var colorSource: ColorSource?
    }

    private let decoder: OpaquePointer
    private let options: ImageDecodeOptions
    private var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
    private var buffer: UnsafeMutableRawBufferPointer?

    init(options: ImageDecodeOptions) throws(WebImageError) {
        guard let decoder = JxlDecoderCreate(nil) else { throw .badImageData("libjxl could not create a decoder") }
        self.decoder = decoder
        self.options = options
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
            | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
              // Orientation is applied after resampling, like every other coder's.
              JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
        else { throw .badImageData("libjxl rejected its decoder settings") }
    }

    deinit {
        JxlDecoderDestroy(decoder)
        buffer?.deallocate()
    }

    /// Decodes `input` (the whole file) to the end, or to the first frame when the options say so.
    func run(_ input: UnsafeBufferPointer<UInt8>) throws(WebImageError) -> Result {
        guard JxlDecoderSetInput(decoder, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
            throw .badImageData("libjxl rejected its input")
        }
        JxlDecoderCloseInput(decoder)
        var info = JxlBasicInfo()
        var result = Result(size: PixelSize(width: 0, height: 0), orientation: .up, frames: [], loopCount: 0)
        var duration = 0.0
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                    throw .badImageData("libjxl could not read the JPEG XL header")
                }
                result.size = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
                try options.checkPixelLimit(width: result.size.width, height: result.size.height)
                result.orientation = Orientation(rawValue: Int(info.orientation.rawValue)) ?? .up
                result.loopCount = info.have_animation != 0 ? Int(clamping: info.animation.num_loops) : 0
            case JXL_DEC_COLOR_ENCODING:
                result.colorSource = colorSource(isGray: info.num_color_channels == 1, isXYB: info.uses_original_profile == 0)
            case JXL_DEC_FRAME:
                let count = result.frames.count + 1
                try options.checkPixelLimit(width: result.size.width, height: result.size.height, frames: count)
                duration = frameDuration(info)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                try setOutputBuffer(size: result.size)
            case JXL_DEC_FULL_IMAGE:
                guard let buffer else { throw .badImageData("libjxl finished a frame without a buffer") }
                let pixels = PixelBuffer(width: result.size.width, height: result.size.height) { out in
                    UnsafeMutableRawBufferPointer(out).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<out.count]))
                }
                result.frames.append(ImageFrame(pixels: pixels, duration: info.have_animation != 0 ? duration : 0))
                if options.firstFrameOnly || info.have_animation == 0 { return result }
            case JXL_DEC_SUCCESS:
                return result
            case JXL_DEC_NEED_MORE_INPUT:
                if !result.frames.isEmpty {
                    result.isTruncated = true
                    return result
                }
                throw .badImageData("The JPEG XL data ends before the image does (\(input.count) bytes)")
            default:
                throw .badImageData("The JPEG XL data is corrupt (libjxl error)")
            }
        }
    }

    /// Asks libjxl for sRGB output when it renders the samples itself (XYB, lossy) and
    /// colour management is on; otherwise returns the profile of the samples libjxl
    /// produces (the file's own), `nil` when they are sRGB.
    private func colorSource(isGray: Bool, isXYB: Bool) -> ColorSource? {
        if isXYB, options.colorManagement == .convertToSRGB {
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, isGray ? JXL_TRUE : JXL_FALSE)
            if JxlDecoderSetPreferredColorProfile(decoder, &srgb) == JXL_DEC_SUCCESS { return nil }
        }
        var encoded = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoded) == JXL_DEC_SUCCESS,
           encoded.primaries == JXL_PRIMARIES_SRGB || encoded.color_space == JXL_COLOR_SPACE_GRAY,
           encoded.white_point == JXL_WHITE_POINT_D65, encoded.transfer_function == JXL_TRANSFER_FUNCTION_SRGB {
            return nil
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
              size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        guard JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &profile, size) == JXL_DEC_SUCCESS
        else { return nil }
        return .iccProfile(profile)
    }

    /// The current frame's display time in seconds, from its ticks and the animation's tick rate.
    private func frameDuration(_ info: JxlBasicInfo) -> Double {
        var header = JxlFrameHeader()
        guard info.have_animation != 0, info.animation.tps_numerator > 0,
              JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else { return 0 }
        return Double(header.duration) * Double(info.animation.tps_denominator) / Double(info.animation.tps_numerator)
    }

    /// Gives libjxl the RGBA buffer for the canvas (the same one for every frame).
    private func setOutputBuffer(size: PixelSize) throws(WebImageError) {
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
              needed == size.width * size.height * 4 else {
            throw .badImageData("libjxl asked for an output buffer of an unexpected size")
        }
        if buffer == nil {
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: needed, alignment: 16)
        }
        guard let buffer, JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, needed) == JXL_DEC_SUCCESS else {
            throw .badImageData("libjxl rejected the output buffer")
        }
    }
}
