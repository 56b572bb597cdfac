import Foundation
import Synchronization

/// Decodes the frames of an APNG one at a time (``AnimationDecoder``).
///
/// Keeps one ``APNGCompositor`` (one canvas) at the position it reached: the next frame
/// costs one libpng decode of that frame; an earlier one, or one past a keyframe ahead,
/// restarts from the nearest keyframe. A file cut short keeps the frames before the
/// frame the cut fell in, with ``AnimationInfo/isTruncated`` set. Calls must not overlap
/// (the state sits behind a `Mutex` anyway); each runs on the caller's thread.
final class APNGAnimationDecoder: AnimationDecoder {
    let info: AnimationInfo
    private let data: Data
    private let reader: APNGReader
    private let keyframes: [Int]
    private let options: ImageDecodeOptions
    /// The colour the file's chunks declare (`nil` for sRGB, untagged, or options that keep
    /// stored samples): each frame is converted from it as the eager decoder converts.
    private let color: ColorSource?
    private let state: Mutex<APNGCompositor?> = Mutex(nil)

    /// Reads the chunks; `nil` for a still PNG or an APNG with a single frame.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for malformed animation chunks,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds the limit.
    init?(data: Data, options: ImageDecodeOptions) throws(WebImageError) {
        let found = try WebImageError.typed(as: .badImageData) {
            try data.withUnsafeBytes { p -> (APNGReader, Orientation, Bool, ColorSource?)? in
                let (chunks, complete) = PNGChunk.scan(p)
                guard var reader = try APNGReader(p, chunks: chunks) else { return nil }
                // The last frame's data may continue past the cut.
                if !complete, !reader.dropLastFrame() { return nil }
                return (reader, PNGCoder.orientation(in: p, chunks: chunks), !complete,
                        PNGCoder.colorSource(in: p, chunks: chunks, options: options))
            }
        }
        guard let (reader, orientation, isTruncated, color) = found, reader.frames.count > 1 else { return nil }
        try options.checkPixelLimit(width: reader.width, height: reader.height, frames: reader.frames.count)
        let canvas = PixelSize(width: reader.width, height: reader.height)
        let turns = options.applyOrientation && orientation.swapsDimensions
        let display = turns ? PixelSize(width: canvas.height, height: canvas.width) : canvas
        info = AnimationInfo(
            format: .apng, canvasSize: canvas, frameSize: options.targetSize(for: display), loopCount: reader.loopCount,
            durations: reader.frames.map(\.control.duration), isTruncated: isTruncated, orientation: orientation)
        self.data = data
        self.reader = reader
        self.keyframes = APNGCompositor.keyframes(of: reader)
        self.options = options
        self.color = color
    }

    var nextFrameIndex: Int {
        state.withLock { $0?.next ?? 0 }
    }

    func frame(at index: Int, reusing storage: consuming PixelBuffer?) throws(WebImageError) -> ImageFrame {
        try FrameStorage.check(index, in: info)
        var spare = consume storage
        let pixels = try state.withLock { compositor throws(WebImageError) -> PixelBuffer in
            do throws(WebImageError) {
                return try compose(index, with: &compositor, reusing: &spare)
            } catch {
                compositor = nil
                throw error
            }
        }
        return ImageFrame(pixels: pixels, duration: info.durations[index])
    }

    /// Draws up to frame `index` and returns that frame as output, made from the canvas
    /// before the frame's disposal changes it (so the canvas is never shared).
    private func compose(_ index: Int, with compositor: inout APNGCompositor?,
                         reusing spare: inout PixelBuffer?) throws(WebImageError) -> PixelBuffer {
        let keyframe = keyframes[index]
        if compositor == nil || index < compositor!.next || keyframe > compositor!.next {
            compositor = APNGCompositor(width: reader.width, height: reader.height, start: keyframe)
        }
        guard var current = compositor else { throw .badImageData("APNG: no canvas") }
        compositor = nil  // keep the canvas uniquely referenced while drawing
        let turns = options.applyOrientation && info.orientation != .up
        var output: PixelBuffer?
        try WebImageError.typed(as: .badImageData) {
            try data.withUnsafeBytes { p in
                while current.next <= index {
                    let isTarget = current.next == index
                    try current.advance(reader, in: p) { canvas in
                        guard isTarget else { return }
                        let plain = !turns && color == nil && canvas.width == info.frameSize.width
                            && canvas.height == info.frameSize.height
                        output = plain
                            ? FrameStorage.copy(canvas, reusing: spare.take())
                            : PNGCoder.finish(canvas, orientation: info.orientation, options: options, color: color)
                    }
                }
            }
        }
        compositor = current
        guard let output else { throw .badImageData("APNG: frame \(index) was not drawn") }
        return output
    }
}
