import Foundation
import WebImageCodecs

/// The proxy's coder: the shared coders, with the server's pixel limit and a decode
/// plan for `fill`.
///
/// The manager and downloader decode with one ``ImageDecodeOptions`` value, and a
/// thumbnail keeps the aspect ratio by fitting *inside* its box, which is right for
/// `fit`. A `fill` needs the smallest decode that *covers* the box, which depends on the
/// source's proportions, unknown until its header is read. So the proxy asks for a
/// `fill` as a thumbnail with `preserveAspectRatio == false` (a mode the proxy never uses
/// otherwise, and one that keeps the two apart in the cache and the downloader's shared
/// decodes), and this coder turns it, from the header, into a square fit box that covers
/// the target in either orientation: JPEGs then still decode at the smallest DCT scale.
///
/// Runs where its caller runs (the decode queue); stateless.
final class CoverDecodingCoder: AnimatedImageCoder {
    let inner: ImageCodersManager
    let maxPixelCount: Int

    init(inner: ImageCodersManager, maxPixelCount: Int) {
        self.inner = inner
        self.maxPixelCount = maxPixelCount
    }

    func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }
    func canEncode(to format: ImageFormat) -> Bool { inner.canEncode(to: format) }

    func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        try inner.encode(image, as: format, options: options)
    }

    func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        try inner.decode(data, options: Self.plan(options, for: data, maxPixelCount: maxPixelCount))
    }

    /// Animations decode lazily (the manager's `lazyAnimatedImage`), frames planned alike.
    func makeAnimationDecoder(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> (any AnimationDecoder)? {
        try inner.makeAnimationDecoder(data, options: Self.plan(options, for: data, maxPixelCount: maxPixelCount))
    }

    /// The options actually used: the pixel limit lowered to the server's, and a cover
    /// request turned into a fit box.
    static func plan(_ options: ImageDecodeOptions, for data: Data, maxPixelCount: Int) -> ImageDecodeOptions {
        var plan = options
        plan.maxPixelCount = min(options.maxPixelCount, maxPixelCount)
        guard let box = options.thumbnailPixelSize, !options.preserveAspectRatio else { return plan }
        plan.preserveAspectRatio = true
        guard let source = ImageGeometry.size(of: data) else {
            plan.thumbnailPixelSize = nil  // unknown proportions: decode whole, the transform crops
            return plan
        }
        let w = Double(source.width), h = Double(source.height)
        let bw = Double(box.width), bh = Double(box.height)
        let scale = min(1, max(bw / w, bh / h, bw / h, bh / w))
        let side = min(ImageDecodeOptions.maxThumbnailSide, Int((max(w, h) * scale).rounded(.up)))
        plan.thumbnailPixelSize = PixelSize(width: side, height: side)
        return plan
    }
}
