import Synchronization

/// Decodes the frames of an animated GIF one at a time (``AnimationDecoder``).
///
/// Keeps one ``GIFFrameWalker`` (one canvas) at the position it reached. The next frame
/// costs one image; an earlier frame, or one past a keyframe ahead, restarts a walker at
/// the nearest keyframe from ``GIFAnimationScan``. Frames equal the eager ``GIFCoder``'s:
/// both compose with the same walker. Calls must not overlap (the state sits behind a
/// `Mutex` anyway); each runs on the caller's thread.
final class GIFAnimationDecoder: AnimationDecoder {
    let info: AnimationInfo
    private let bytes: [UInt8]
    private let scan: GIFAnimationScan
    private let keyframes: [Int]
    private let options: ImageDecodeOptions

    private struct State {
        var walker: GIFFrameWalker?
        /// Frames the walker has drawn since its start keyframe, counted from 0.
        var next = 0
    }
    private let state = Mutex(State())

    /// Reads the structure; `nil` for a GIF with fewer than two complete images.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for an unreadable header or empty
    ///   canvas, ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds the limit.
    init?(bytes: [UInt8], options: ImageDecodeOptions) throws(WebImageError) {
        guard bytes.count >= 13 else { throw .badImageData("The GIF data is truncated (\(bytes.count) bytes)") }
        let width = Int(bytes[6]) | Int(bytes[7]) << 8, height = Int(bytes[8]) | Int(bytes[9]) << 8
        guard width > 0, height > 0 else { throw .badImageData("The GIF canvas is \(width)x\(height)") }
        try options.checkPixelLimit(width: width, height: height)
        let scan = GIFAnimationScan(bytes)
        guard scan.images.count > 1 else { return nil }
        try options.checkPixelLimit(width: width, height: height, frames: scan.images.count)
        // A frame reaching far past the canvas is refused like a canvas that large, as the walk would.
        for image in scan.images {
            try options.checkPixelLimit(width: image.rect.left + image.rect.width, height: image.rect.top + image.rect.height)
        }
        let canvas = PixelSize(width: width, height: height)
        info = AnimationInfo(
            format: .gif, canvasSize: canvas, frameSize: options.targetSize(for: canvas), loopCount: scan.loopCount,
            durations: scan.images.map { GIFDecoder.duration(centiseconds: $0.delay) }, isTruncated: scan.isTruncated)
        self.bytes = bytes
        self.scan = scan
        self.keyframes = scan.keyframes(width: width, height: height)
        self.options = options
    }

    var nextFrameIndex: Int {
        state.withLock { $0.walker == nil ? 0 : $0.next }
    }

    func frame(at index: Int, reusing storage: consuming PixelBuffer?) throws(WebImageError) -> ImageFrame {
        try FrameStorage.check(index, in: info)
        let canvas = try state.withLock { s throws(WebImageError) -> PixelBuffer in
            try compose(index, in: &s)
        }
        let target = info.frameSize
        let pixels = canvas.width == target.width && canvas.height == target.height
            ? FrameStorage.copy(canvas, reusing: storage)
            : canvas.resampled(width: target.width, height: target.height)
        return ImageFrame(pixels: pixels, duration: info.durations[index])
    }

    /// Walks to frame `index` and returns the composed canvas.
    private func compose(_ index: Int, in s: inout State) throws(WebImageError) -> PixelBuffer {
        let keyframe = keyframes[index]
        if s.walker == nil || index < s.next || keyframe > s.next {
            s.walker = nil
            let start = keyframe == 0 ? nil : (offset: scan.images[keyframe].recordOffset, imageIndex: keyframe)
            s.walker = try GIFFrameWalker(bytes: bytes, options: options, start: start)
            s.next = keyframe
        }
        guard let walker = s.walker else { throw .badImageData("The GIF cannot be opened") }
        do throws(WebImageError) {
            while true {
                switch try walker.next() {
                case .frame:
                    s.next += 1
                    if s.next == index + 1 { return walker.pixels }
                case .end:
                    throw .badImageData("The GIF ends before frame \(index)")
                case .stopped(let error, _):
                    throw error
                }
            }
        } catch {
            s.walker = nil
            s.next = 0
            throw error
        }
    }
}
