import CResample

/// A Lanczos3 resample of an image whose rows arrive top to bottom (see
/// ``ResamplingFilter/lanczos3`` for the filter).
///
/// Each source row is consumed as it comes: converted to fixed point (colour premultiplied
/// by alpha unless the image is known to be opaque) and, when the gap rule asks for a box
/// shrink, summed into its block; an opaque row with no box shrink is kept as it is. Each
/// pre-shrunk row enters a ring of as many rows as the vertical kernel has taps, and every
/// output row whose taps are all in is finished at once: vertical pass (over the source
/// width, but only for output rows), horizontal pass, back to 8-bit RGBA. A decoder can
/// therefore feed its rows strip by strip and the full-size image never exists; the ring and
/// one row of each pass are all the extra memory. Kernels come from a cache shared by
/// every resample of the same sizes. The inner loops are C (`CResample`: AVX2 where the CPU
/// has it, SSE2 otherwise on x86-64, plain C elsewhere; all give the same bytes).
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
    /// In fixed point, or (``keepsBytes``) as the 8-bit rows they arrived as.
    private var ring: [Int16]
    private var byteRing: [UInt8]
    /// Whether rows enter the ring as they are: an opaque source with no box shrink needs
    /// no premultiplying, and the vertical pass widens 8-bit values as it loads them (the
    /// same sums), which saves a conversion pass and half the ring.
    private let keepsBytes: Bool
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
        horizontal = LanczosKernel.cached(source: sourceWidth, extent: sourceExtent?.width, destination: width)
        vertical = LanczosKernel.cached(source: sourceHeight, extent: sourceExtent?.height, destination: height)
        premultiply = !isOpaque
        let rowValues = horizontal.inputLength * 4
        // Every buffer but the box sums is written before it is read, so none is zero-filled
        // first (that was a memset of the whole output per image).
        let boxed = horizontal.boxFactor > 1 || vertical.boxFactor > 1
        keepsBytes = isOpaque && !boxed
        ring = Self.uninitialized(keepsBytes ? 0 : vertical.count * rowValues)
        byteRing = Self.uninitialized(keepsBytes ? vertical.count * rowValues : 0)
        sums = [Int64](repeating: 0, count: boxed ? rowValues : 0)
        scratch = Self.uninitialized(boxed ? sourceWidth * 4 : 0)
        // The horizontal pass reads `stride` taps from each start, up to `stride - count`
        // pixels past the row; their weights are zero, and the values there are zeros.
        let padding = (horizontal.stride - horizontal.count) * 4
        columnPass = [Int16](unsafeUninitializedCapacity: rowValues + padding) { buffer, initialized in
            buffer.baseAddress?.advanced(by: rowValues).initialize(repeating: 0, count: padding)
            initialized = rowValues + padding
        }
        rowPass = Self.uninitialized(width * 4)
        output = [UInt8](unsafeUninitializedCapacity: width * height * 4) { _, initialized in
            initialized = width * height * 4
        }
    }

    /// An array of `count` values that the resampler writes before reading; `[]` for
    /// none, because for a capacity of 0 the standard library's initialiser writes the
    /// count of its one shared empty-array storage, a data race with any other thread
    /// doing the same (`make test-tsan` reported it between two decodes).
    private static func uninitialized<Value: BitwiseCopyable>(_ count: Int) -> [Value] {
        guard count > 0 else { return [] }
        return [Value](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
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
                if keepsBytes {
                    byteRing.withUnsafeMutableBufferPointer { ring in
                        (ring.baseAddress! + slot).update(from: row, count: rowValues)
                    }
                } else {
                    ring.withUnsafeMutableBufferPointer { ring in
                        wi_rs_load_row(row, width, premultiply, ring.baseAddress! + slot)
                    }
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
        var bytes = output
        let done = outputRowsDone * horizontal.outputLength * 4
        if done < bytes.count {
            bytes.withUnsafeMutableBufferPointer { $0[done...].initialize(repeating: 0) }
        }
        return PixelBuffer(width: horizontal.outputLength, height: vertical.outputLength, bytes: bytes)
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
        columnPass.withUnsafeMutableBufferPointer { column in
            vertical.weights.withUnsafeBufferPointer { w in
                let weights = w.baseAddress! + y * vertical.stride
                if keepsBytes {
                    byteRing.withUnsafeBufferPointer { ring in
                        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: taps) { rows in
                            for t in 0..<taps {
                                rows[t] = ring.baseAddress! + ((start + t) % taps) * rowValues
                            }
                            wi_rs_vertical_bytes(rows.baseAddress!, weights, Int32(taps), rowValues, column.baseAddress!)
                        }
                    }
                } else {
                    ring.withUnsafeBufferPointer { ring in
                        withUnsafeTemporaryAllocation(of: UnsafePointer<Int16>?.self, capacity: taps) { rows in
                            for t in 0..<taps {
                                rows[t] = ring.baseAddress! + ((start + t) % taps) * rowValues
                            }
                            wi_rs_vertical(rows.baseAddress!, weights, Int32(taps), rowValues, column.baseAddress!)
                        }
                    }
                }
            }
        }
        columnPass.withUnsafeBufferPointer { column in
            rowPass.withUnsafeMutableBufferPointer { rowPass in
                horizontal.starts.withUnsafeBufferPointer { starts in
                    horizontal.weights.withUnsafeBufferPointer { w in
                        output.withUnsafeMutableBufferPointer { output in
                            let row = output.baseAddress! + y * outWidth * 4
                            if premultiply {
                                wi_rs_horizontal(column.baseAddress!, starts.baseAddress!, w.baseAddress!,
                                                 Int32(horizontal.stride), outWidth, rowPass.baseAddress!)
                                wi_rs_store_row(rowPass.baseAddress!, outWidth, 1, row)
                            } else {
                                wi_rs_horizontal_store(column.baseAddress!, starts.baseAddress!, w.baseAddress!,
                                                       Int32(horizontal.stride), outWidth, rowPass.baseAddress!, row)
                            }
                        }
                    }
                }
            }
        }
    }
}
