extension LanczosKernel {
    /// One axis of the kernel from a JPEG's chroma plane to the chroma of a 4:2:0 output
    /// whose side is `side` pixels, the way the RGBA path lands: there each output pixel is
    /// resampled and libjpeg's encoder averages pairs, the last pixel of an odd side paired
    /// with its own copy.
    ///
    /// So chroma sample k is centred between output pixels 2k and 2k + 1 and spans both,
    /// which is this kernel over the plane's `extent` stretched to 2 × ⌈side / 2⌉ output
    /// pixels; the last sample of an odd side is output pixel `side - 1` alone, so its
    /// weights are a full-resolution kernel's for that pixel. `nil` only if the windows
    /// would not stay in order (the resampler's ring of rows needs them so), which the
    /// caller declines.
    ///
    /// - Parameters:
    ///   - source: the chroma plane's samples along the axis.
    ///   - extent: how much of the image they cover, in samples (see ``init(source:extent:destination:)``).
    static func chroma(source: Int, extent: Double, side: Int) -> LanczosKernel? {
        let half = (side + 1) / 2
        let paired = cached(source: source, extent: extent * Double(2 * half) / Double(side), destination: half)
        guard side % 2 == 1 else { return paired }
        let single = cached(source: source, extent: extent, destination: side)
        guard single.boxFactor == paired.boxFactor else { return nil }
        // Every window re-laid in the wider of the two tap counts (the pairs' kernel of an
        // axis left as it is has one tap; the last pixel's may have more).
        let count = max(paired.count, single.count), stride = (count + 3) / 4 * 4
        let inputLength = paired.inputLength
        var starts = [Int32](repeating: 0, count: half), weights = [Int16](repeating: 0, count: half * stride)
        func place(_ kernel: LanczosKernel, _ from: Int, into j: Int) -> Bool {
            let windowStart = Int(kernel.starts[from])
            let start = max(0, min(windowStart, inputLength - count))
            let offset = windowStart - start
            guard offset >= 0, offset + kernel.count <= count, j == 0 || start >= Int(starts[j - 1]) else { return false }
            starts[j] = Int32(start)
            for t in 0..<kernel.count {
                weights[j * stride + offset + t] = kernel.weights[from * kernel.stride + t]
            }
            return true
        }
        for j in 0..<(half - 1) where !place(paired, j, into: j) { return nil }
        guard place(single, side - 1, into: half - 1) else { return nil }
        return LanczosKernel(boxFactor: paired.boxFactor, inputLength: inputLength, outputLength: half,
                             count: count, stride: stride, starts: starts, weights: weights)
    }

    /// A kernel from its parts, for ``chroma(source:extent:side:)``.
    private init(boxFactor: Int, inputLength: Int, outputLength: Int, count: Int, stride: Int,
                 starts: [Int32], weights: [Int16]) {
        self.boxFactor = boxFactor
        self.inputLength = inputLength
        self.outputLength = outputLength
        self.count = count
        self.stride = stride
        self.starts = starts
        self.weights = weights
    }
}
