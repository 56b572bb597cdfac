import CResample

/// A Lanczos3 resample of one 8-bit plane (a JPEG's Y, Cb or Cr samples) whose rows arrive
/// top to bottom: ``Resampler``'s kernels, ring of rows and rounding, one channel wide.
///
/// Only the kernel's own taps: when either axis would want ``Resampler``'s box pre-shrink
/// (a residual scale of 8 or more) there is no plane resampler, and the caller takes the
/// RGBA path, which has one. Runs on the caller's thread; one instance serves one plane.
struct PlaneResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let horizontal: LanczosKernel
    let vertical: LanczosKernel

    /// The last `vertical.count` source rows as they arrived: slot `r % vertical.count`
    /// holds row `r`.
    private var ring: [UInt8]
    private var sourceRowsDone = 0
    private var outputRowsDone = 0
    /// The vertical pass's row, zero-padded so the horizontal pass may read `stride` taps
    /// from every start.
    private var columnPass: [Int16]
    /// The resampled plane, `width` × `height` bytes.
    private(set) var plane: [UInt8]

    /// `nil` when an axis would need a box pre-shrink (see the type's description).
    ///
    /// - Parameters:
    ///   - horizontal: the kernel from the source plane's columns to the output's.
    ///   - vertical: the kernel from its rows to the output's.
    init?(sourceWidth: Int, sourceHeight: Int, horizontal: LanczosKernel, vertical: LanczosKernel) {
        self.horizontal = horizontal
        self.vertical = vertical
        let width = horizontal.outputLength, height = vertical.outputLength
        guard horizontal.boxFactor == 1, vertical.boxFactor == 1 else { return nil }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        // Written before read, so none is zero-filled but the padding.
        let ringCount = vertical.count * sourceWidth, planeCount = width * height
        ring = [UInt8](unsafeUninitializedCapacity: ringCount) { _, n in n = ringCount }
        let padding = horizontal.stride - horizontal.count
        columnPass = [Int16](unsafeUninitializedCapacity: sourceWidth + padding) { buffer, initialized in
            buffer.baseAddress?.advanced(by: sourceWidth).initialize(repeating: 0, count: padding)
            initialized = sourceWidth + padding
        }
        plane = [UInt8](unsafeUninitializedCapacity: planeCount) { _, n in n = planeCount }
    }

    var width: Int { horizontal.outputLength }
    var height: Int { vertical.outputLength }

    /// Whether every output row is written.
    var isComplete: Bool { outputRowsDone == vertical.outputLength }

    /// Consumes the next `count` source rows, `stride` bytes apart from `rows` on.
    mutating func consume(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int) {
        let width = sourceWidth, taps = vertical.count
        for r in 0..<min(count, sourceHeight - sourceRowsDone) {
            let slot = (sourceRowsDone % taps) * width
            ring.withUnsafeMutableBufferPointer { ring in
                (ring.baseAddress! + slot).update(from: rows + r * stride, count: width)
            }
            sourceRowsDone += 1
            while outputRowsDone < vertical.outputLength,
                  Int(vertical.starts[outputRowsDone]) + taps <= sourceRowsDone {
                emitOutputRow(outputRowsDone)
                outputRowsDone += 1
            }
        }
    }

    private mutating func emitOutputRow(_ y: Int) {
        let taps = vertical.count, width = sourceWidth
        let start = Int(vertical.starts[y]), outWidth = horizontal.outputLength
        columnPass.withUnsafeMutableBufferPointer { column in
            vertical.weights.withUnsafeBufferPointer { w in
                ring.withUnsafeBufferPointer { ring in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: taps) { rows in
                        for t in 0..<taps {
                            rows[t] = ring.baseAddress! + ((start + t) % taps) * width
                        }
                        wi_rs_vertical_bytes(rows.baseAddress!, w.baseAddress! + y * vertical.stride, Int32(taps),
                                             width, column.baseAddress!)
                    }
                }
            }
        }
        columnPass.withUnsafeBufferPointer { column in
            horizontal.starts.withUnsafeBufferPointer { starts in
                horizontal.weights.withUnsafeBufferPointer { w in
                    plane.withUnsafeMutableBufferPointer { plane in
                        wi_rs_horizontal_plane_store(column.baseAddress!, starts.baseAddress!, w.baseAddress!,
                                                     Int32(horizontal.stride), outWidth,
                                                     plane.baseAddress! + y * outWidth)
                    }
                }
            }
        }
    }
}
