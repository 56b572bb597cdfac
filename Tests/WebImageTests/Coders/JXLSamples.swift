import CJXL
import Foundation
@testable import WebImageCodecs

/// JPEG XL files the Python plugin cannot write: a lossless animation (made with libjxl's
/// own encoder) and a header declaring an enormous image.
enum JXLSamples {
    struct EncodeFailure: Error {}

    /// A lossless RGBA still tagged with the ICC profile `icc`.
    static func still(_ pixels: PixelBuffer, icc: [UInt8]) throws -> Data {
        try animation([pixels], milliseconds: [0], loops: 0, icc: icc)
    }

    /// A lossless RGBA animation of `frames` with the given durations and loop count (a
    /// still for one frame), in sRGB or the ICC profile `icc`.
    static func animation(_ frames: [PixelBuffer], milliseconds: [UInt32], loops: UInt32, icc: [UInt8]? = nil) throws -> Data {
        guard let encoder = JxlEncoderCreate(nil), let first = frames.first else { throw EncodeFailure() }
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(first.width)
        info.ysize = UInt32(first.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.num_extra_channels = 1
        info.alpha_bits = 8
        info.uses_original_profile = JXL_TRUE
        info.have_animation = frames.count > 1 ? JXL_TRUE : JXL_FALSE
        info.animation.tps_numerator = 1000
        info.animation.tps_denominator = 1
        info.animation.num_loops = loops
        guard JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS else { throw EncodeFailure() }
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, JXL_FALSE)
        let colorStatus = icc.map { JxlEncoderSetICCProfile(encoder, $0, $0.count) } ?? JxlEncoderSetColorEncoding(encoder, &color)
        guard colorStatus == JXL_ENC_SUCCESS,
              let settings = JxlEncoderFrameSettingsCreate(encoder, nil),
              JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS else { throw EncodeFailure() }
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        for (frame, duration) in zip(frames, milliseconds) {
            var header = JxlFrameHeader()
            JxlEncoderInitFrameHeader(&header)
            header.duration = duration
            guard JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS else { throw EncodeFailure() }
            let status = frame.bytes.withUnsafeBytes { raw in
                JxlEncoderAddImageFrame(settings, &format, raw.baseAddress, raw.count)
            }
            guard status == JXL_ENC_SUCCESS else { throw EncodeFailure() }
        }
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { throw EncodeFailure() }
            output += [UInt8](repeating: 0, count: output.count)
        }
        return Data(output.prefix(written))
    }

    /// A bare codestream whose size header says `side`×`side`, with default metadata and
    /// nothing after it.
    static func bomb(side: UInt32 = 100_000) -> Data {
        var bits: [Bool] = []
        func put(_ value: UInt32, _ count: Int) { for i in 0..<count { bits.append(value >> UInt32(i) & 1 == 1) } }
        put(0, 1)            // not "small"
        put(3, 2)            // height: the 30-bit form
        put(side - 1, 30)
        put(1, 3)            // aspect ratio 1:1, so the width is the height
        put(1, 1)            // image metadata: all default
        var bytes: [UInt8] = [0xFF, 0x0A]
        for start in stride(from: 0, to: bits.count, by: 8) {
            var byte: UInt8 = 0
            for (i, bit) in bits[start..<min(start + 8, bits.count)].enumerated() where bit { byte |= 1 << UInt8(i) }
            bytes.append(byte)
        }
        return Data(bytes + [UInt8](repeating: 0, count: 16))
    }
}
