import CGIF

/// The logical screen an animated GIF draws on: frames are composed here in order,
/// honouring each frame's disposal, so every output frame is a full-canvas picture.
///
/// The canvas starts fully transparent, and "restore to background" clears to
/// transparent, as browsers do (the background colour index is ignored).
struct GIFCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: PixelBuffer
    /// The canvas before the last frame was drawn, kept only when that frame asked
    /// to be disposed to the previous picture.
    private var saved: PixelBuffer?
    private var pendingDisposal = GIFCanvas.Disposal.none

    /// What to do with a frame's area before the next frame is drawn.
    enum Disposal {
        case none
        case background(GIFFrameRect)
        case previous
    }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = PixelBuffer(width: width, height: height)
    }

    /// Set when ``pixels`` was handed out to be kept: the next frame begins on a copy made
    /// by ``FrameStorage/freshCopy(of:)`` rather than by copy-on-write at the first write.
    var isKeptElsewhere = false

    /// Applies the previous frame's disposal, then prepares to draw a frame that will be
    /// disposed with `disposalMode` (the GIF graphic control value).
    mutating func beginFrame(rect: GIFFrameRect, disposalMode: Int32) {
        // One copy per kept frame, made before the first write: a restored picture is the
        // storage of an earlier kept frame, and a saved one keeps the old storage.
        var needsCopy = isKeptElsewhere
        isKeptElsewhere = false
        switch pendingDisposal {
        case .none:
            break
        case .background(let area):
            if needsCopy {
                pixels = FrameStorage.freshCopy(of: pixels)
                needsCopy = false
            }
            clear(area)
        case .previous:
            if let saved { pixels = saved }
        }
        saved = nil
        switch disposalMode {
        case DISPOSE_BACKGROUND:
            pendingDisposal = .background(rect)
        case DISPOSE_PREVIOUS:
            saved = pixels
            pendingDisposal = .previous
        default:
            pendingDisposal = .none
        }
        if needsCopy { pixels = FrameStorage.freshCopy(of: pixels) }
    }

    /// Draws the first `rowCount` rows of a frame's `indices` (rows of `rect.width`, in
    /// file order: top to bottom, or the four interlace passes).
    mutating func drawFrame(
        _ indices: UnsafeBufferPointer<UInt8>,
        rowCount: Int,
        rect: GIFFrameRect,
        isInterlaced: Bool,
        palette: UnsafeBufferPointer<UInt32>
    ) {
        guard let base = indices.baseAddress, rect.width > 0, rowCount * rect.width <= indices.count else { return }
        let rows = GIFDecoder.rowOrder(height: rect.height, interlaced: isInterlaced)
        for index in 0..<min(rowCount, rows.count) {
            drawRow(UnsafeBufferPointer(start: base + index * rect.width, count: rect.width), row: rows[index],
                    rect: rect, palette: palette)
        }
    }

    /// Writes one decoded row of palette indices at frame row `row`, clipped to the canvas;
    /// indices whose colour has alpha 0 (the transparent index) leave the canvas as it is.
    mutating func drawRow(
        _ indices: UnsafeBufferPointer<GifPixelType>,
        row: Int,
        rect: GIFFrameRect,
        palette: UnsafeBufferPointer<UInt32>
    ) {
        let y = rect.top + row
        guard y >= 0, y < height else { return }
        let x0 = max(rect.left, 0)
        let x1 = min(rect.left + rect.width, width)
        guard x0 < x1 else { return }
        guard let colors = palette.baseAddress, let source = indices.baseAddress else { return }
        let start = y * width + x0, count = x1 - x0
        // Raw pointers: this loop touches every pixel of every frame.
        pixels.bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            let out = base.assumingMemoryBound(to: UInt32.self) + start
            let from = source + (x0 - rect.left)
            for i in 0..<count {
                let color = colors[Int(from[i])]
                if color != 0 { out[i] = color }
            }
        }
    }

    private mutating func clear(_ area: GIFFrameRect) {
        let x0 = max(area.left, 0), x1 = min(area.left + area.width, width)
        let y0 = max(area.top, 0), y1 = min(area.top + area.height, height)
        guard x0 < x1, y0 < y1 else { return }
        let canvasWidth = width
        pixels.bytes.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt32.self)
            for y in y0..<y1 {
                let start = y * canvasWidth
                out.baseAddress?.advanced(by: start + x0).update(repeating: 0, count: x1 - x0)
            }
        }
    }
}

/// A frame's position and size on the canvas, straight from its image descriptor
/// (it may lie partly or wholly outside the canvas).
struct GIFFrameRect: Equatable {
    var left: Int
    var top: Int
    var width: Int
    var height: Int
}
