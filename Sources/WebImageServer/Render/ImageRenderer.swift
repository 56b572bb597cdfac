import Foundation
import WebImage
import WebImageCodecs

/// Turns a source's bytes into a result, in imgproxy's order of operations
/// (docs/about_processing_pipeline.mdx): decode (shrinking on load, EXIF orientation),
/// rotate and flip, trim, crop, scale, crop to the result (gravity or smart), blur,
/// sharpen, pixelate, extend, extend to the aspect ratio, padding, background, watermark,
/// encode (`max_bytes` re-encodes at lower quality). Every step is a WebImage transformer
/// (`ImageTransform.trim`, `.smartCrop`,
/// `.extend`…) or the codecs' resampler: the proxy has no imaging
/// engine of its own.
///
/// Blocking CPU work: runs on ``WebImageCodecs/DecodeQueue``. An animated result is decoded, processed and
/// encoded one frame at a time (``WebImageCodecs/AnimatedImage``).
struct ImageRenderer: Sendable {
    var options: ProcessingOptions
    var choice: OutputChoice
    var limits: RenderLimits
    var output: OutputSettings
    /// The decoded watermark image, when the server has one.
    var watermark: PixelBuffer?
    var coder: ImageCodersManager = .shared
    /// The steps' spans (decode, transform, encode), when the request is traced.
    var trace: RenderTrace? = nil

    /// The encoded result.
    struct Output: Sendable {
        var data: Data
        var format: ImageFormat
        var size: PixelSize
    }

    var autoRotate: Bool { options.autoRotate ?? output.autoRotate }
    var maxAnimationFrames: Int { options.maxAnimationFrames ?? limits.maxAnimationFrames }
    var maxResultDimension: Int { options.maxResultDimension ?? output.maxResultDimension }

    /// The source's size in the result's orientation (EXIF when auto-rotating, then `rotate`).
    func finalSize(of header: ImageHeader) -> PixelSize {
        ProcessingPlan.rotated(autoRotate ? header.displaySize : header.storedSize, by: options.rotate)
    }

    /// Decode options: the pixel limit, the orientation, and a thumbnail of the whole
    /// source at the planned scale (in the orientation the decoder produces), so the
    /// decoder shrinks on load and resamples once; `nil` thumbnail decodes whole. The
    /// second value is the source size (final orientation) the plan was made for, when
    /// the decoder was asked to shrink.
    func decodeOptions(header: ImageHeader?, animated: Bool) -> (ImageDecodeOptions, plannedSource: PixelSize?) {
        var decode = ImageDecodeOptions(
            maxPixelCount: min(limits.maxSourcePixels, options.maxSourceResolution ?? .max),
            firstFrameOnly: !animated, applyOrientation: autoRotate)
        decode.shrinkOnLoad = output.shrinkOnLoad
        guard let header, options.trim == nil || animated else { return (decode, nil) }
        let final = finalSize(of: header)
        let plan = ProcessingPlan(source: final, options: options, maxResultDimension: maxResultDimension)
        // The scaled source turned back to the decoder's orientation (before `rotate`).
        let scaled = ProcessingPlan.rotated(PixelSize(width: ProcessingPlan.scale(final.width, plan.scaleX),
                                                      height: ProcessingPlan.scale(final.height, plan.scaleY)), by: options.rotate)
        let decoded = autoRotate ? header.displaySize : header.storedSize
        guard scaled.width < decoded.width || scaled.height < decoded.height else { return (decode, nil) }
        decode.thumbnailPixelSize = PixelSize(width: max(1, scaled.width), height: max(1, scaled.height))
        decode.preserveAspectRatio = false
        return (decode, final)
    }

    /// Refuses, from the header alone, a result larger than the output limit (before any
    /// memory is reserved or pixel decoded).
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/imageTooLarge``.
    func checkPlannedOutput(_ header: ImageHeader?) throws(WebImageError) {
        guard let header else { return }
        let plan = ProcessingPlan(source: finalSize(of: header), options: options, maxResultDimension: maxResultDimension)
        try checkOutput(plan.outputSize(options), frames: 1)
    }

    /// Renders `data`, whose header is `header` (`nil` when unreadable: decoded whole).
    ///
    /// - Throws: ``WebImageCodecs/WebImageError`` — `imageTooLarge` past the pixel, frame or output limits,
    ///   `badImageData` for data that does not decode, `unsupportedFormat` when no encoder
    ///   writes the chosen format, `encodingFailed`.
    func render(_ data: Data, header: ImageHeader?) throws(WebImageError) -> Output {
        let animated = (header?.isAnimated ?? false) && maxAnimationFrames > 1
        let (decode, planned) = decodeOptions(header: header, animated: animated)
        if let planar = try renderPlanarJPEG(data, header: header, animated: animated, decode: decode, planned: planned) {
            return planar
        }
        // An animation's later frames are decoded as they are encoded (in "encode").
        let (image, first) = try step("decode") { () throws(WebImageError) in
            let image = try DecodedImage.decodingLazily(data, options: decode, coder: coder)
            guard let first = image.frames.first?.pixels, first.width > 0, first.height > 0 else {
                throw .badImageData("The image has no pixels")
            }
            return (image, first)
        }
        let expectsAlpha = options.background == nil
            && (first.hasAlpha || options.padding.isEnabled || options.extend.isEnabled)
        let (format, keepsFrames) = choice.resolve(
            source: image.format, animated: animated && image.frameCount > 1, expectsAlpha: expectsAlpha)
        guard coder.canEncode(to: format) else { throw .unsupportedFormat("This server has no \(format.rawValue) encoder") }
        let flatten = options.background != nil || !OutputChoice.alphaFormats.contains(format)
        if keepsFrames, let animation = image.animation {
            if animation.info.frameCount > maxAnimationFrames {
                throw .imageTooLarge("\(animation.info.frameCount) frames exceed the limit of \(maxAnimationFrames)")
            }
            let steps = try FrameSteps(
                renderer: self, frameSize: animation.info.frameSize, plannedSource: planned, flatten: flatten, trims: false)
            try checkOutput(steps.outputSize, frames: animation.info.frameCount)
            let transformed = animation.transformed(key: "proxy") { frame, _ in
                (try? steps.apply(to: frame.pixels)).map { ImageFrame(pixels: $0, duration: frame.duration) }
            }
            // Each frame is transformed as it is encoded: one "encode" span for both.
            let encoded = try step("encode") { () throws(WebImageError) in
                try transformed.encoded(as: format, options: ImageEncodeOptions(quality: Double(quality(for: format)) / 100))
            }
            return Output(data: encoded, format: format, size: steps.outputSize)
        }
        let pixels = try step("transform") { () throws(WebImageError) in
            let steps = try FrameSteps(renderer: self, frameSize: PixelSize(width: first.width, height: first.height),
                                       plannedSource: planned, flatten: flatten, trims: options.trim != nil, firstFrame: first)
            try checkOutput(steps.outputSize, frames: 1)
            return try steps.apply(to: first)
        }
        let still = DecodedImage(pixels: pixels, format: image.format, scale: image.scale, orientation: image.orientation)
        return try step("encode") { () throws(WebImageError) in try encode(still, as: format) }
    }

    func checkOutput(_ size: PixelSize, frames: Int) throws(WebImageError) {
        let (pixels, o1) = size.width.multipliedReportingOverflow(by: size.height)
        let (all, o2) = pixels.multipliedReportingOverflow(by: max(1, frames))
        if o1 || o2 || all > limits.maxOutputPixels {
            throw .imageTooLarge("The output exceeds the limit of \(limits.maxOutputPixels) pixels")
        }
    }

    /// The quality for `format`: the URL's, else the URL's per-format one, else the
    /// server's per-format one, else the server's.
    func quality(for format: ImageFormat) -> Int {
        if options.quality > 0 { return options.quality }
        if let q = options.formatQuality[format], q > 0 { return q }
        if let q = output.formatQuality[format], q > 0 { return q }
        return output.quality
    }

    /// Encodes a still: AVIF under 16 pixels falls back to PNG or JPEG (as imgproxy);
    /// `max_bytes` lowers the quality until the result fits or the quality reaches 10.
    private func encode(_ image: DecodedImage, as requested: ImageFormat) throws(WebImageError) -> Output {
        var format = requested
        if format == .avif && (image.width < 16 || image.height < 16) { format = image.hasAlpha ? .png : .jpeg }
        var q = quality(for: format)
        let lossy: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, .tiff, .jxl]
        while true {
            let data = try coder.encode(image, as: format, options: ImageEncodeOptions(quality: Double(q) / 100))
            guard lossy.contains(format), let next = nextQuality(after: q, size: data.count) else {
                return Output(data: data, format: format, size: PixelSize(width: image.width, height: image.height))
            }
            q = next
        }
    }

    /// imgproxy's `max_bytes` step: `nil` when a result of `size` bytes at quality `q` is the
    /// answer (no limit, it fits, or `q` ≤ 10), else the next quality to try: `q` scaled by
    /// 0.25, 0.5 or 0.75 (over 3×, over 1.5× the limit, else), lowered by at least one.
    func nextQuality(after q: Int, size: Int) -> Int? {
        let limit = options.maxBytes
        if limit <= 0 || size <= limit || q <= 10 { return nil }
        let ratio = Double(size) / Double(limit)
        let factor = ratio > 3 ? 0.25 : ratio > 1.5 ? 0.5 : 0.75
        return max(1, min(q - 1, ProcessingPlan.round(Double(q) * factor)))
    }
}

/// The limits a render enforces: ``ProxyConfig``'s, lowered by the URL's security options.
struct RenderLimits: Sendable, Hashable {
    var maxSourcePixels: Int
    var maxOutputPixels: Int
    var maxAnimationFrames: Int
}
