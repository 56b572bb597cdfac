import CResample

/// A Lanczos3 resample of an image whose rows arrive top to bottom (see
/// ``ResamplingFilter/lanczos3`` for the filter).
///
/// Each source row is consumed as it comes: converted to fixed point (colour premultiplied
/// by alpha unless the image is known to be opaque) and, when the gap rule asks for a box
/// shrink, summed into its block. Each pre-shrunk row enters a ring of as many rows as the
/// vertical kernel has taps, and every output row whose taps are all in is finished at once:
/// vertical pass, horizontal pass, back to 8-bit RGBA. A decoder can therefore feed its rows
/// strip by strip and the full-size image never exists; the ring and one row of each pass
/// are all the extra memory. The inner loops are C (`CResample`: SSE2 on x86-64).
///
/// Runs on the caller's thread; one instance serves one image.
struct Resampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let horizontal: LanczosKernel
    let vertical: LanczosKernel
    /// Whether colour is weighted by alpha; an opaque source can skip it (same result).
    let premultiply: Bool

    /// The pre-shrunk rows the next output rows read: slot `r % vertical.count` holds row `r`.
    private var ring: [Int16]
    /// Box sums of the pre-shrunk row being built (when there is a box shrink), and room
    /// for one source row in fixed point.
    private var sums: [Int64]
    private var scratch: [Int16]
    private var rowsInSums = 0
    private var sourceRowsDone = 0
    private var preshrunkRowsDone = 0
    private var outputRowsDone = 0
    private var columnPass: [Int16]
    private var rowPass: [Int16]
    private var output: [UInt8]

    /// - Parameters:
    ///   - sourceExtent: the source area the rows cover, in source pixels (default: all of
    ///     them); see ``LanczosKernel/init(source:extent:destination:)``.
    ///   - isOpaque: every source alpha is 255 (a JPEG), so premultiplying can be skipped.
    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int,
         sourceExtent: (width: Double, height: Double)? = nil, isOpaque: Bool = false) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        horizontal = LanczosKernel(source: sourceWidth, extent: sourceExtent?.width, destination: width)
        vertical = LanczosKernel(source: sourceHeight, extent: sourceExtent?.height, destination: height)
        premultiply = !isOpaque
        let rowValues = horizontal.inputLength * 4
        ring = [Int16](repeating: 0, count: vertical.count * rowValues)
        let boxed = horizontal.boxFactor > 1 || vertical.boxFactor > 1
        sums = [Int64](repeating: 0, count: boxed ? rowValues : 0)
        scratch = [Int16](repeating: 0, count: boxed ? sourceWidth * 4 : 0)
        columnPass = [Int16](repeating: 0, count: rowValues)
        rowPass = [Int16](repeating: 0, count: width * 4)
        output = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Whether every source row has been consumed.
    var isComplete: Bool { sourceRowsDone == sourceHeight }

    /// Consumes the next `count` source rows: RGBA, `stride` bytes apart from `rows` on.
    mutating func consume(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int) {
        let width = sourceWidth, rowValues = horizontal.inputLength * 4
        let boxed = !sums.isEmpty, premultiply = premultiply ? Int32(1) : 0
        for r in 0..<min(count, sourceHeight - sourceRowsDone) {
            let row = rows + r * stride
            sourceRowsDone += 1
            if !boxed {
                let slot = (preshrunkRowsDone % vertical.count) * rowValues
                ring.withUnsafeMutableBufferPointer { ring in
                    wi_rs_load_row(row, width, premultiply, ring.baseAddress! + slot)
                }
                rowEntered()
                continue
            }
            sums.withUnsafeMutableBufferPointer { sums in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    wi_rs_box_add_row(row, width, horizontal.boxFactor, premultiply, scratch.baseAddress!,
                                      sums.baseAddress!)
                }
            }
            rowsInSums += 1
            if rowsInSums == vertical.boxFactor || sourceRowsDone == sourceHeight {
                emitBoxRow()
            }
        }
    }

    /// The resampled image, once every source row is consumed (rows still missing are
    /// transparent black).
    var image: PixelBuffer {
        PixelBuffer(width: horizontal.outputLength, height: vertical.outputLength, bytes: output)
            ?? PixelBuffer(width: 0, height: 0)
    }

    /// Turns the box sums into the next pre-shrunk row.
    private mutating func emitBoxRow() {
        let groups = horizontal.inputLength, k = horizontal.boxFactor
        let lastK = sourceWidth - (groups - 1) * k
        let slot = (preshrunkRowsDone % vertical.count) * groups * 4
        let rows = rowsInSums
        sums.withUnsafeMutableBufferPointer { sums in
            ring.withUnsafeMutableBufferPointer { ring in
                wi_rs_box_emit(sums.baseAddress!, groups, k, lastK, rows, ring.baseAddress! + slot)
            }
        }
        rowsInSums = 0
        rowEntered()
    }

    /// Counts a pre-shrunk row in and finishes every output row it completes.
    private mutating func rowEntered() {
        preshrunkRowsDone += 1
        while outputRowsDone < vertical.outputLength,
              Int(vertical.starts[outputRowsDone]) + vertical.count <= preshrunkRowsDone {
            emitOutputRow(outputRowsDone)
            outputRowsDone += 1
        }
    }

    private mutating func emitOutputRow(_ y: Int) {
        let taps = vertical.count, rowValues = horizontal.inputLength * 4
        let start = Int(vertical.starts[y]), outWidth = horizontal.outputLength
        let premultiplied = premultiply ? Int32(1) : 0
        ring.withUnsafeBufferPointer { ring in
            columnPass.withUnsafeMutableBufferPointer { column in
                rowPass.withUnsafeMutableBufferPointer { rowPass in
                    output.withUnsafeMutableBufferPointer { output in
                        withUnsafeTemporaryAllocation(of: UnsafePointer<Int16>?.self, capacity: taps) { rows in
                            for t in 0..<taps {
                                rows[t] = ring.baseAddress! + ((start + t) % taps) * rowValues
                            }
                            vertical.weights.withUnsafeBufferPointer { w in
                                wi_rs_vertical(rows.baseAddress!, w.baseAddress! + y * taps, Int32(taps), rowValues,
                                               column.baseAddress!)
                            }
                        }
                        horizontal.starts.withUnsafeBufferPointer { starts in
                            horizontal.weights.withUnsafeBufferPointer { w in
                                wi_rs_horizontal(column.baseAddress!, starts.baseAddress!, w.baseAddress!,
                                                 Int32(horizontal.count), outWidth, rowPass.baseAddress!)
                            }
                        }
                        wi_rs_store_row(rowPass.baseAddress!, outWidth, premultiplied,
                                        output.baseAddress! + y * outWidth * 4)
                    }
                }
            }
        }
    }
}
