import Foundation
import WebImage

/// Turns one downloaded body into the sample's image the way img2dataset's resizer does
/// (its README and `resizer.py`, 1.47): decode without applying EXIF orientation, paint
/// transparent pixels on white, apply the size filters, resize, crop or pad
/// (``ResizePlan``), encode; the hash is of the downloaded bytes.
///
/// The pixels come from our codecs rather than OpenCV: a JPEG that is only made smaller
/// is shrunk while it is decoded (the codecs' shrink-on-load rule) and finished by the
/// shared resampler; others decode whole and are resampled. An interpolation asked for
/// is the filter of that last resize (``SampleInterpolation``). Samples stay as stored
/// (no ICC conversion), as OpenCV leaves them. Grey images come out as RGB images with
/// equal channels (img2dataset writes one-channel JPEGs); 16-bit PNGs are scaled to 8 bits
/// (img2dataset saturates them).
///
/// **Threads.** ``process(_:)`` computes and blocks: run it on ``DecodeQueue`` only.
struct SampleProcessor: Sendable {
    struct Settings: Sendable {
        var mode = ResizeMode.border
        var size = 256
        var onlyIfBigger = false
        var borderColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 255, 255)
        var format = EncodeFormat.jpg
        /// `--encode-quality`: JPEG and WebP 0…100 (WebP above 100 is lossless); PNG 0…9,
        /// accepted for compatibility (our PNG encoder has one compression level).
        var quality = 95
        var minImageSize = 0
        var maxImageArea = Double.infinity
        var maxAspectRatio = Double.infinity
        var skipReencode = false
        /// img2dataset's `disable_all_reencoding`: the downloaded bytes are the sample, with
        /// no decoding, size check or resize (and no sizes in the record).
        var disablesAllReencoding = false
        /// `upscale_interpolation` and `downscale_interpolation` (``SampleInterpolation``).
        var upscale = SampleInterpolation.lanczos3
        var downscale = SampleInterpolation.lanczos3
        /// `compute_hash`; `nil` for none.
        var hash: SampleHash? = .sha256
        /// `extract_exif`.
        var extractsEXIF = false
    }

    /// The encoded sample and what its JSON says about it.
    struct Output: Sendable {
        var bytes: Data
        /// The sizes; `nil` with `disable_all_reencoding` (img2dataset leaves them out).
        var width: Int?
        var height: Int?
        var originalWidth: Int?
        var originalHeight: Int?
        /// The hex digest of the downloaded bytes (``Settings/hash``).
        var hash: String?
        /// The `exif` column's JSON text (``Settings/extractsEXIF``).
        var exif: String?
    }

    let settings: Settings

    /// The sample made from the downloaded `data`. `expectedHash` (img2dataset's
    /// `verify_hash`) must equal the digest, else the sample fails to download with `hash
    /// mismatch`, as there; `boxes` are blurred (`bbox_col`).
    func process(_ data: Data, expectedHash: JSONValue? = nil, boxes: [[Double]]? = nil) -> Result<Output, SampleFailure> {
        let hash = settings.hash.map { $0.hex(data) }
        if let expectedHash {
            guard case .string(let expected) = expectedHash, expected == hash else {
                return .failure(.download("hash mismatch"))
            }
        }
        var result = make(data, boxes: boxes)
        if case .success(var output) = result {
            output.hash = hash
            if settings.extractsEXIF { output.exif = EXIFColumn.json(for: data) }
            result = .success(output)
        }
        return result
    }

    private func make(_ data: Data, boxes: [[Double]]?) -> Result<Output, SampleFailure> {
        if settings.disablesAllReencoding {
            return .success(Output(bytes: data))
        }
        guard let header = ImageHeader(data), header.storedSize.width > 0, header.storedSize.height > 0 else {
            return .failure(.resize("Image decoding error"))
        }
        let (w, h) = (header.storedSize.width, header.storedSize.height)
        if min(w, h) < settings.minImageSize { return .failure(.resize("image too small")) }
        if Double(w) * Double(h) > settings.maxImageArea { return .failure(.resize("image area too large")) }
        if Double(max(w, h)) / Double(min(w, h)) > settings.maxAspectRatio {
            return .failure(.resize("aspect ratio too large"))
        }
        let plan = ResizePlan(width: w, height: h, mode: settings.mode, size: settings.size,
                              onlyIfBigger: settings.onlyIfBigger)
        var options = ImageDecodeOptions(firstFrameOnly: true, applyOrientation: false, colorManagement: .keepStoredSamples)
        // Shrink-on-load only for an opaque format made smaller: transparent pixels must be
        // painted white before they are averaged with their neighbours, as img2dataset does.
        // An interpolation asked for sees the whole image, as OpenCV's does; Lanczos3 is the
        // codecs' own thumbnail path.
        if let target = plan.resize, !header.mayHaveAlpha, target.width <= w, target.height <= h,
           settings.downscale.keepsShrinkOnLoad {
            // A thumbnail size is meant for the upright picture; the pixels stay as stored.
            let swaps = header.orientation.swapsDimensions
            options.thumbnailPixelSize = PixelSize(width: swaps ? target.height : target.width,
                                                   height: swaps ? target.width : target.height)
            options.preserveAspectRatio = false
        }
        var pixels: PixelBuffer
        do throws(WebImageError) {
            pixels = try ImageCodersManager.shared.decode(data, options: options).pixels
        } catch {
            return .failure(.resize(error.code == .imageTooLarge ? error.message : "Image decoding error"))
        }
        // The header's size is what the filters saw; a decoder that disagrees is not trusted.
        guard pixels.width > 0, pixels.height > 0 else { return .failure(.resize("Image decoding error")) }
        let hadAlpha = pixels.hasAlpha
        if hadAlpha { Self.paintOnWhite(&pixels) }
        if let target = plan.resize, pixels.width != target.width || pixels.height != target.height {
            // img2dataset's test: a downscale makes the image smaller than the original.
            let filter = target.width < w || target.height < h ? settings.downscale : settings.upscale
            pixels = filter.resize(pixels, width: target.width, height: target.height)
        }
        if let boxes { pixels = BoundingBoxBlurrer.blur(pixels, boxes: boxes) }
        if let crop = plan.crop { pixels = Self.crop(pixels, crop) }
        if let padding = plan.padding { pixels = Self.pad(pixels, padding, color: settings.borderColor) }

        let bytes: Data
        if settings.skipReencode, !plan.isResized, boxes?.isEmpty ?? true, !hadAlpha, !header.mayHaveAlpha,
           settings.format.matchesSniffed(data) {
            bytes = data
        } else {
            do throws(WebImageError) {
                bytes = try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: settings.format.imageFormat),
                                                             as: settings.format.imageFormat, options: encodeOptions)
            } catch {
                return .failure(.resize(error.message))
            }
        }
        return .success(Output(bytes: bytes, width: pixels.width, height: pixels.height,
                               originalWidth: w, originalHeight: h))
    }

    private var encodeOptions: ImageEncodeOptions {
        switch settings.format {
        // The standard Huffman tables, as img2dataset's OpenCV `imencode` writes them: an
        // optimised table costs a second pass over the coefficients (10 % of a sample's CPU
        // at q95, measured) for files about 5 % smaller.
        case .jpg: ImageEncodeOptions(quality: Double(max(1, min(settings.quality, 100))) / 100,
                                      optimizeHuffmanTables: false)
        case .webp: ImageEncodeOptions(quality: Double(max(1, min(settings.quality, 100))) / 100,
                                       lossless: settings.quality > 100)
        case .png: ImageEncodeOptions()
        }
    }

    /// img2dataset's alpha rule, per colour channel in double precision:
    /// `round_half_even(clip(a/255 · c + (255 − a), 0, 255))`; the result is opaque.
    static func paintOnWhite(_ pixels: inout PixelBuffer) {
        pixels.withUnsafeMutableBytes { p in
            var i = 0
            while i + 3 < p.count {
                let a = Double(p[i + 3])
                if a < 255 {
                    for c in 0..<3 {
                        let value = (a / 255.0) * Double(p[i + c]) + (255 - a)
                        p[i + c] = UInt8(min(max(value, 0), 255).rounded(.toNearestOrEven))
                    }
                    p[i + 3] = 255
                }
                i += 4
            }
        }
    }

    /// The `side × side` square at (`x`, `y`), clamped to the image.
    static func crop(_ pixels: PixelBuffer, _ crop: (x: Int, y: Int, side: Int)) -> PixelBuffer {
        let x0 = max(0, crop.x), y0 = max(0, crop.y)
        let w = max(1, min(crop.side, pixels.width - x0)), h = max(1, min(crop.side, pixels.height - y0))
        return pixels.bytes.withUnsafeBufferPointer { source in
            PixelBuffer(width: w, height: h) { dst in
                guard let from = source.baseAddress, let to = dst.baseAddress else { return }
                for row in 0..<h {
                    (to + row * w * 4).update(from: from + ((y0 + row) * pixels.width + x0) * 4, count: w * 4)
                }
            }
        }
    }

    /// `pixels` inside a border of `color`: each output row written once (the border's
    /// pixels as one repeated 32-bit word, the image's rows copied whole), so a 256×256
    /// sample costs a few hundred row copies instead of a loop over its bytes.
    static func pad(_ pixels: PixelBuffer, _ padding: (top: Int, bottom: Int, left: Int, right: Int),
                    color: (r: UInt8, g: UInt8, b: UInt8)) -> PixelBuffer {
        let w = pixels.width + padding.left + padding.right
        let h = pixels.height + padding.top + padding.bottom
        let word = [color.r, color.g, color.b, 255].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        return pixels.bytes.withUnsafeBufferPointer { source in
            PixelBuffer(width: w, height: h) { dst in
                guard let to = UnsafeMutableRawPointer(dst.baseAddress) else { return }
                let words = to.bindMemory(to: UInt32.self, capacity: w * h)
                for row in 0..<h {
                    let line = words + row * w
                    let inside = row >= padding.top && row < padding.top + pixels.height
                    guard inside, let from = source.baseAddress else {
                        line.update(repeating: word, count: w)
                        continue
                    }
                    line.update(repeating: word, count: padding.left)
                    UnsafeMutableRawPointer(line + padding.left).copyMemory(
                        from: from + (row - padding.top) * pixels.width * 4, byteCount: pixels.width * 4)
                    (line + padding.left + pixels.width).update(repeating: word, count: padding.right)
                }
            }
        }
    }
}

/// `--encode-format`: img2dataset's names, which are also the file extensions.
enum EncodeFormat: String, Sendable, CaseIterable {
    case jpg, png, webp

    var imageFormat: ImageFormat {
        switch self {
        case .jpg: .jpeg
        case .png: .png
        case .webp: .webp
        }
    }

    /// Python `imghdr`'s test (what img2dataset's `skip_reencode` uses): a JPEG is
    /// recognised only by `JFIF` or `Exif` at byte 6 or a leading `FF D8 FF DB`.
    func matchesSniffed(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(12))
        switch self {
        case .jpg:
            guard head.count >= 10 else { return false }
            return head[6..<10].elementsEqual("JFIF".utf8) || head[6..<10].elementsEqual("Exif".utf8)
                || head[0..<4].elementsEqual([0xFF, 0xD8, 0xFF, 0xDB])
        case .png: return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .webp: return head.count >= 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
        }
    }
}
