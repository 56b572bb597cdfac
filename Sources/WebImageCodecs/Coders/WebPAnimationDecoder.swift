import CWebP
import Foundation
import Synchronization

/// Decodes the frames of an animated WebP one at a time (``AnimationDecoder``).
///
/// libwebp's `WebPAnimDecoder` composes frames only in order, keeping its own canvas and
/// the keyframe logic inside, so this wraps one such decoder: the next frame costs one
/// frame; an earlier frame resets it and decodes forward from the first. Durations and
/// the frame count come from the demuxer without decoding. Calls must not overlap (the
/// state sits behind a `Mutex` anyway); each runs on the caller's thread.
final class WebPAnimationDecoder: AnimationDecoder {
    let info: AnimationInfo
    private let options: ImageDecodeOptions
    /// The size libwebp composes at.
    private let stored: PixelSize
    /// The `ICCP` profile every frame converts from (`nil`: none, or stored samples kept).
    private let colorSource: ColorSource?
    private let state: Mutex<Cursor>

    /// libwebp's decoder and the bytes it reads from, which must stay put while it lives.
    private final class Cursor {
        let bytes: UnsafeMutableRawBufferPointer
        let decoder: OpaquePointer
        var next = 0

        init(bytes: UnsafeMutableRawBufferPointer, decoder: OpaquePointer) {
            self.bytes = bytes
            self.decoder = decoder
        }

        deinit {
            WebPAnimDecoderDelete(decoder)
            bytes.deallocate()
        }
    }

    /// Opens the animation; `nil` for a still WebP or an animation of one frame.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds the limit.
    init?(data: Data, options: ImageDecodeOptions) throws(WebImageError) {
        let header = try WebImageError.typed(as: .badImageData) {
            try data.withUnsafeBytes { raw throws(WebImageError) in try WebPHeader.parse(raw) }
        }
        guard let header else { throw .badImageData("The WebP data is truncated (\(data.count) bytes)") }
        try options.checkPixelLimit(width: header.width, height: header.height)
        guard header.isAnimated else { return nil }
        // libwebp's animation decoder refuses a file cut short: keep its complete chunks.
        let isTruncated = data.withUnsafeBytes { WebPHeader.isShorterThanDeclared($0) }
        let usable = isTruncated ? Self.completeChunks(of: data) : data

        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, usable.count), alignment: 16)
        usable.copyBytes(to: bytes)
        var webpData = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: usable.count)
        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            bytes.deallocate()
            throw .badImageData("libwebp rejected its animation decoder options")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&webpData, &decoderOptions) else {
            bytes.deallocate()
            throw .badImageData("The animated WebP data is corrupt or truncated")
        }
        let cursor = Cursor(bytes: bytes, decoder: decoder)
        var animInfo = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &animInfo) != 0, animInfo.frame_count > 0 else {
            throw .badImageData("The animated WebP has no frames")
        }
        let count = Int(animInfo.frame_count)
        guard count > 1 else { return nil }
        let stored = PixelSize(width: Int(animInfo.canvas_width), height: Int(animInfo.canvas_height))
        try options.checkPixelLimit(width: stored.width, height: stored.height, frames: count)

        let demuxer = WebPAnimDecoderGetDemuxer(decoder)
        var durations: [Double] = []
        durations.reserveCapacity(count)
        for number in 1...count {
            var iterator = WebPIterator()
            var milliseconds = 0
            if let demuxer, WebPDemuxGetFrame(demuxer, Int32(number), &iterator) != 0 {
                milliseconds = Int(iterator.duration)
                WebPDemuxReleaseIterator(&iterator)
            }
            let shown = milliseconds <= WebPCoder.minimumFrameMilliseconds ? 100 : milliseconds
            durations.append(Double(shown) / 1000)
        }
        let orientation = header.hasEXIF ? demuxer.map { WebPHeader.orientation(in: $0) } ?? .up : .up
        let size = WebPHeader.decodeSize(stored: stored, orientation: orientation, options: options)
        let turns = options.applyOrientation && orientation.swapsDimensions
        info = AnimationInfo(
            format: .webp, canvasSize: stored,
            frameSize: turns ? PixelSize(width: size.height, height: size.width) : size,
            loopCount: Int(animInfo.loop_count), durations: durations, isTruncated: isTruncated,
            orientation: orientation)
        self.options = options
        self.stored = stored
        colorSource = demuxer.flatMap { WebPCoder.colorSource(in: $0, header: header, options: options) }
        state = Mutex(cursor)
    }

    /// The RIFF container cut back to its last complete chunk, with the RIFF size fixed:
    /// the frames (`ANMF` chunks) wholly present, for a file that was cut short.
    static func completeChunks(of data: Data) -> Data {
        var bytes = [UInt8](data)
        guard bytes.count >= 12 else { return data }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            guard end <= bytes.count else { break }
            offset = end
        }
        bytes.removeSubrange(offset...)
        let riff = UInt32(offset - 8)
        for i in 0..<4 { bytes[4 + i] = UInt8(truncatingIfNeeded: riff >> (8 * UInt32(i))) }
        return Data(bytes)
    }

    var nextFrameIndex: Int {
        state.withLock { $0.next }
    }

    func frame(at index: Int, reusing storage: consuming PixelBuffer?) throws(WebImageError) -> ImageFrame {
        try FrameStorage.check(index, in: info)
        let size = WebPHeader.decodeSize(stored: stored, orientation: info.orientation, options: options)
        let turns = options.applyOrientation && info.orientation != .up
        let plain = size == stored && !turns
        var spare = consume storage
        var pixels = try state.withLock { cursor throws(WebImageError) -> PixelBuffer in
            if index < cursor.next {
                WebPAnimDecoderReset(cursor.decoder)
                cursor.next = 0
            }
            var canvas: UnsafeMutablePointer<UInt8>?
            while cursor.next <= index {
                var timestamp: Int32 = 0
                guard WebPAnimDecoderHasMoreFrames(cursor.decoder) != 0,
                      WebPAnimDecoderGetNext(cursor.decoder, &canvas, &timestamp) != 0 else {
                    WebPAnimDecoderReset(cursor.decoder)
                    cursor.next = 0
                    throw .badImageData("Frame \(index + 1) of the animated WebP is corrupt")
                }
                cursor.next += 1
            }
            guard let canvas else { throw .badImageData("Frame \(index + 1) of the animated WebP is missing") }
            return FrameStorage.make(width: stored.width, height: stored.height, reusing: plain ? spare.take() : nil) { out in
                out.baseAddress?.update(from: canvas, count: out.count)
            }
        }
        if size != stored { pixels = pixels.resampled(width: size.width, height: size.height) }
        ColorConverter.convertToSRGB(&pixels, from: colorSource, options: options)
        if !plain, options.applyOrientation { pixels = pixels.oriented(info.orientation) }
        return ImageFrame(pixels: pixels, duration: info.durations[index])
    }
}
