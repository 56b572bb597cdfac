import WebImageCodecs

/// The bytes of pixels one render may hold at its peak, worked out from the header
/// before anything is decoded; the request reserves them from the memory budget
/// (``ProxyConfig/maxMemoryBytes``).
///
/// Deliberately generous: what the decoder loads (a JPEG shrinks on load by 1/2, 1/4 or
/// 1/8 while leaving at least twice the target, as libvips does; other formats load
/// whole), twice (colour conversion and orientation copy it), the resampler's working
/// rows, four result-sized buffers (scale, crop, effects and canvas, encode), and a
/// progressive JPEG's coefficient arrays, which libjpeg keeps for the whole image at full
/// resolution however far it shrinks on load (``ImageHeader/coefficientBytes``). An
/// animation adds one canvas: it is processed a frame at a time. A header the proxy cannot
/// read (JPEG XL, damaged files) is planned at the largest source the server accepts,
/// capped at the budget.
enum MemoryEstimate {
    static func peakBytes(renderer: ImageRenderer, header: ImageHeader?, config: ProxyConfig) -> Int {
        guard let header else { return min(config.maxSourcePixels * 8, config.maxMemoryBytes) }
        let source = renderer.autoRotate ? header.displaySize : header.storedSize
        let final = renderer.finalSize(of: header)
        let plan = ProcessingPlan(source: final, options: renderer.options, maxResultDimension: renderer.maxResultDimension)
        let scaled = (ProcessingPlan.scale(final.width, plan.scaleX), ProcessingPlan.scale(final.height, plan.scaleY))
        let shrink = min(Double(source.width) / Double(max(1, scaled.0)), Double(source.height) / Double(max(1, scaled.1)))
        var loaded = Double(source.width) * Double(source.height)
        if header.format == .jpeg, renderer.options.trim == nil {
            let n: Double = shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
            loaded /= n * n
        }
        let result = Double(plan.outputSize(renderer.options).width) * Double(plan.outputSize(renderer.options).height)
        let resampled = Double(max(scaled.0, 1)) * Double(max(scaled.1, 1))
        let rows = Double(max(scaled.0, 1)) * Double(source.height) * 4
        var bytes = loaded * 4 * 2 + rows + resampled * 4 * 2 + result * 4 * 4 + Double(header.coefficientBytes)
        if header.isAnimated { bytes += loaded * 4 }
        return Int(min(bytes, Double(Int.max / 2)))
    }
}
