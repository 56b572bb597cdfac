import Foundation
import WebImage
import WebImageCodecs

extension ImageRenderer {
    /// Whether this render may go through ``JPEGPlanarTranscoder`` (decode, resample and
    /// encode in YCbCr planes; no RGB anywhere) instead of decode → ``FrameSteps`` → encode.
    ///
    /// The rule: a still JPEG source that the decoder is told to shrink (`planned`: the
    /// thumbnail size is the plan's scaled size, with nothing cropped from it by
    /// `resizing_type=fill`), a JPEG result, and none of the steps that need RGB pixels or
    /// another geometry: `trim`, `crop`, `rotate`, flips, `blur`, `sharpen`, `pixelate`,
    /// `extend`, `extend_aspect_ratio`, `padding` and `watermark`. `max_bytes` is allowed: the
    /// transcode is repeated at imgproxy's lower qualities, so each answer is the bytes `q:N`
    /// gives at the quality the loop ends on. `background` is allowed: a JPEG source is opaque, so flattening changes
    /// nothing. The transcoder itself still declines (then this render decodes as usual)
    /// what needs RGB in the source: an EXIF orientation to apply, an ICC profile that is not
    /// sRGB, grayscale/CMYK/odd sampling, or a box pre-shrink.
    func allowsPlanarJPEG(header: ImageHeader?, animated: Bool, decode: ImageDecodeOptions,
                          planned: PixelSize?) -> Bool {
        guard let header, header.format == .jpeg, !animated, let planned,
              let thumbnail = decode.thumbnailPixelSize else { return false }
        let o = options
        guard o.trim == nil, o.crop == nil, o.rotate % 360 == 0, !o.flipHorizontal, !o.flipVertical,
              o.blur <= 0, o.sharpen <= 0, o.pixelate <= 1, !o.extend.isEnabled, !o.extendAspectRatio.isEnabled,
              !o.padding.isEnabled, o.watermark == nil else { return false }
        let plan = ProcessingPlan(source: planned, options: o, maxResultDimension: maxResultDimension)
        guard plan.scaledSize == thumbnail, plan.croppedSize == plan.scaledSize else { return false }
        return choice.resolve(source: .jpeg, animated: false, expectsAlpha: false).0 == .jpeg
    }

    /// The planar render when ``allowsPlanarJPEG(header:animated:decode:planned:)`` holds and
    /// the transcoder takes the source; `nil` to render as usual.
    func renderPlanarJPEG(_ data: Data, header: ImageHeader?, animated: Bool, decode: ImageDecodeOptions,
                          planned: PixelSize?) throws(WebImageError) -> Output? {
        guard allowsPlanarJPEG(header: header, animated: animated, decode: decode, planned: planned),
              let thumbnail = decode.thumbnailPixelSize else { return nil }
        try checkOutput(thumbnail, frames: 1)
        // max_bytes: the resampled planes are encoded again at each lower quality, decoded once.
        var q = quality(for: .jpeg)
        // Decode, resample and encode in one pass: one "transcode" span when traced.
        let result = try step("transcode") { () throws(WebImageError) in
            try JPEGPlanarTranscoder.transcode(data, options: decode, encode: ImageEncodeOptions(quality: Double(q) / 100)) { output in
                guard let next = nextQuality(after: q, size: output.data.count) else { return nil }
                q = next
                return ImageEncodeOptions(quality: Double(next) / 100)
            }
        }
        return result.map { Output(data: $0.data, format: .jpeg, size: $0.size) }
    }
}
