import Foundation
import WebImageCodecs

/// What one render will cost, worked out from the source's header before any pixel is
/// decoded: the decode size, the output size and the planned peak of pixel memory the
/// request reserves from the proxy's memory budget (``ProxyConfig/maxMemoryBytes``).
///
/// The estimate is deliberately generous: the decoded source twice
/// (at the DCT-scaled size a JPEG decodes at, at full size for other formats, plus the
/// thumbnail they resample to; colour conversion and orientation make a second copy),
/// the resampler's floating-point rows, and three output-sized buffers (resample, crop
/// or blur, encode). An animated output decodes frame by frame, so it adds one more
/// decoded canvas, not one per frame. A header the proxy cannot read (AVIF, HEIC, JPEG XL)
/// is planned at the largest source the server accepts, capped at the budget.
struct RenderPlan: Sendable {
    /// The stored size from the header; `nil` when it could not be read.
    var sourceSize: PixelSize?
    /// Pixels the decoder produces.
    var decodeSize: PixelSize
    /// The output's size (display orientation unknown: the larger of both readings).
    var outputSize: PixelSize
    /// Bytes reserved for the render.
    var peakBytes: Int

    /// Plans `data` for `options`.
    ///
    /// - Throws: ``ProxyError`` 422 `imageTooLarge` when the output would exceed
    ///   ``ProxyConfig/maxOutputPixels`` however the source is oriented.
    init(data: Data, options: ProxyOptions, config: ProxyConfig) throws(ProxyError) {
        guard let size = ImageGeometry.size(of: data) else {
            sourceSize = nil
            let side = Int(Double(config.maxSourcePixels).squareRoot())
            decodeSize = PixelSize(width: side, height: side)
            outputSize = decodeSize
            peakBytes = min(config.maxSourcePixels * 8, config.maxMemoryBytes)
            return
        }
        sourceSize = size
        let upright = Self.output(for: size, options: options)
        let turned = Self.output(for: PixelSize(width: size.height, height: size.width), options: options)
        let smaller = min(upright.width * upright.height, turned.width * turned.height)
        if smaller > config.maxOutputPixels {
            throw ProxyError(WebImageError.imageTooLarge("The output would exceed the limit of \(config.maxOutputPixels) pixels"))
        }
        outputSize = upright.width * upright.height >= turned.width * turned.height ? upright : turned
        let isJPEG = ImageFormat.detect(data) == .jpeg
        decodeSize = isJPEG ? Self.jpegDecodeSize(size, covering: outputSize) : size
        let decoded = decodeSize.width * decodeSize.height * 4
        let thumbnail = isJPEG ? 0 : outputSize.width * outputSize.height * 4
        let rows = outputSize.width * decodeSize.height * 16
        let outputs = outputSize.width * outputSize.height * 4 * 3
        let animated = ImageFormat.detect(data) == .gif || ImageFormat.detect(data) == .webp ? decoded : 0
        // A colour-managed or rotated decode keeps a second copy. The encoded source is
        // the source cache's, shared by every request for it, and bounded there.
        peakBytes = decoded * 2 + thumbnail + rows + outputs + animated
    }

    /// The output size of a source of `size` under the options' box and mode.
    static func output(for size: PixelSize, options: ProxyOptions) -> PixelSize {
        let box = options.pixelBox
        let w = Double(size.width), h = Double(size.height)
        switch (box.width, box.height) {
        case (0, 0):
            return size
        case (let bw, let bh) where bw > 0 && bh > 0 && options.mode != .fit:
            let scale = max(Double(bw) / w, Double(bh) / h)
            return scale <= 1 ? box : PixelSize(width: min(size.width, bw), height: min(size.height, bh))
        default:
            let sw = box.width > 0 ? Double(box.width) / w : .infinity
            let sh = box.height > 0 ? Double(box.height) / h : .infinity
            let scale = min(1, sw, sh)
            return PixelSize(width: max(1, Int((w * scale).rounded())), height: max(1, Int((h * scale).rounded())))
        }
    }

    /// The size libjpeg decodes `size` at: the smallest DCT scale (1/8, 1/4, 1/2) still
    /// covering `target`, as ``JPEGCoder`` picks it.
    static func jpegDecodeSize(_ size: PixelSize, covering target: PixelSize) -> PixelSize {
        for denominator in [8, 4, 2] {
            let w = (size.width + denominator - 1) / denominator
            let h = (size.height + denominator - 1) / denominator
            if w >= target.width && h >= target.height && w >= target.height && h >= target.width {
                return PixelSize(width: w, height: h)
            }
        }
        return size
    }
}
