/// The APNG canvas as frames are drawn on it in order: the state the spec's disposal and
/// blending rules need, shared by the eager decode and ``APNGAnimationDecoder``.
///
/// A value used on one thread.
struct APNGCompositor {
    /// The canvas after the last frame's disposal (transparent before the first).
    private(set) var canvas: PixelBuffer
    /// The frame ``advance(_:in:shown:)`` draws next.
    private(set) var next: Int

    /// A transparent canvas at frame `start` (0, or a keyframe).
    init(width: Int, height: Int, start: Int = 0) {
        canvas = PixelBuffer(width: width, height: height)
        next = start
    }

    /// Decodes and draws frame ``next``, hands the canvas as it shows that frame to
    /// `shown`, then applies the frame's disposal.
    mutating func advance(_ reader: APNGReader, in p: UnsafeRawBufferPointer,
                          shown: (PixelBuffer) throws -> Void = { _ in }) throws {
        let index = next
        let control = reader.frames[index].control
        let pixels = try reader.framePixels(index, in: p)
        let dispose = Self.disposal(of: reader, index)
        let saved = dispose == APNGReader.disposePrevious ? APNGReader.region(of: canvas, control) : nil
        APNGReader.draw(pixels, onto: &canvas, at: control, blend: control.blend != APNGReader.blendSource)
        try shown(canvas)
        if dispose == APNGReader.disposeBackground {
            APNGReader.clear(&canvas, control)
        } else if let saved {
            APNGReader.restore(saved, into: &canvas, control)
        }
        next += 1
    }

    /// Frame `index`'s disposal; a first frame cannot restore a previous state, so the
    /// spec treats "previous" there as "background".
    static func disposal(of reader: APNGReader, _ index: Int) -> UInt8 {
        let dispose = reader.frames[index].control.dispose
        return index == 0 && dispose == APNGReader.disposePrevious ? APNGReader.disposeBackground : dispose
    }

    /// For each frame, the nearest frame at or before it that does not depend on earlier
    /// ones: frame 0; a frame after one disposed to background over the whole canvas; or
    /// a frame replacing the whole canvas (blend "source") that does not restore to previous.
    static func keyframes(of reader: APNGReader) -> [Int] {
        func covers(_ c: APNGReader.FrameControl) -> Bool {
            c.x == 0 && c.y == 0 && c.width >= reader.width && c.height >= reader.height
        }
        var result: [Int] = []
        result.reserveCapacity(reader.frames.count)
        for (k, frame) in reader.frames.enumerated() {
            let afterClear = k > 0 && disposal(of: reader, k - 1) == APNGReader.disposeBackground
                && covers(reader.frames[k - 1].control)
            let replaces = covers(frame.control) && frame.control.blend == APNGReader.blendSource
                && disposal(of: reader, k) != APNGReader.disposePrevious
            result.append(k == 0 || afterClear || replaces ? k : result[k - 1])
        }
        return result
    }
}
