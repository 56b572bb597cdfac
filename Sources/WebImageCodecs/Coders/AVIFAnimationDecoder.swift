import Foundation
import Synchronization

/// Decodes the frames of an AVIF image sequence one at a time (``AnimationDecoder``).
///
/// Wraps one parsed ``AVIFSource``: the next frame costs one AV1 frame; any other is
/// decoded by libavif from the nearest keyframe at or before it. Frame count, durations
/// and orientation come from the container without decoding. Calls must not overlap (the
/// source sits behind a `Mutex` anyway); each runs on the caller's thread.
final class AVIFAnimationDecoder: AnimationDecoder {
    let info: AnimationInfo
    private let options: ImageDecodeOptions
    private let shaper: FrameShaper
    private let colorSource: ColorSource?
    private let state: Mutex<Cursor>

    /// The source and the frame it decodes next.
    private final class Cursor {
        let source: AVIFSource
        var next = 0

        init(source: AVIFSource) {
            self.source = source
        }
    }

    /// Opens the sequence; `nil` for a still AVIF (one frame).
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for corrupt or truncated data,
    ///   ``WebImageError/Code/imageTooLarge`` when frame size × frames exceeds the limit.
    init?(data: Data, options: ImageDecodeOptions) throws(WebImageError) {
        let source = try AVIFSource(data: data, options: options)
        guard source.frameCount > 1 else { return nil }
        try options.checkPixelLimit(width: source.size.width, height: source.size.height, frames: source.frameCount)
        shaper = FrameShaper(stored: source.size, orientation: source.orientation, options: options)
        info = AnimationInfo(
            format: .avif, canvasSize: source.size, frameSize: shaper.outputSize, loopCount: 0,
            durations: (0..<source.frameCount).map { source.duration(of: $0) }, orientation: source.orientation)
        colorSource = options.colorManagement == .convertToSRGB ? source.colorSource : nil
        self.options = options
        state = Mutex(Cursor(source: source))
    }

    var nextFrameIndex: Int {
        state.withLock { $0.next }
    }

    func frame(at index: Int, reusing storage: consuming PixelBuffer?) throws(WebImageError) -> ImageFrame {
        try FrameStorage.check(index, in: info)
        var spare = consume storage
        let plain = shaper.isIdentity
        var pixels = try state.withLock { cursor throws(WebImageError) -> PixelBuffer in
            do throws(WebImageError) {
                let pixels = try cursor.source.frame(at: index, reusing: plain ? spare.take() : nil)
                cursor.next = index + 1
                return pixels
            } catch {
                cursor.next = 0
                throw error
            }
        }
        if !plain { pixels = shaper.shape(pixels) }
        ColorConverter.convertToSRGB(&pixels, from: colorSource, options: options)
        return ImageFrame(pixels: pixels, duration: info.durations[index])
    }
}
