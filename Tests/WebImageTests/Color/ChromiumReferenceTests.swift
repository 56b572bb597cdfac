import Foundation
import Testing
import WebImageCodecs

/// Our decode of every corpus file agrees with headless Chromium's (see `ChromiumReference`).
///
/// Tolerance, on 0–255 after both images are reduced to the same ≤ 16×16 cells: mean
/// absolute difference ≤ 2 and largest ≤ 8. That covers the rounding of two colour
/// pipelines (lcms2's 8-bit optimized transforms against skcms's float ones: ±1–3 on a
/// pixel) and of two JPEG upsamplers, which averaging shrinks further; a curve applied by
/// one side and not the other (PNG gAMA 1.0 against 2.2 moves mid-grey by 60, sRGB against
/// Display P3 moves a saturated red by 20+) fails it everywhere.
@Suite("Chromium reference", .timeLimit(.minutes(10)))
struct ChromiumReferenceTests {
    static let meanTolerance = 2.0
    static let maxTolerance = 8

    /// How a file that differs from Chromium on purpose is checked instead.
    enum Difference {
        /// Compared with these options (e.g. orientation off, as Chromium has it).
        case compare(with: ImageDecodeOptions)
        /// Compared with a looser tolerance: two colour engines' interpolation of a lookup table.
        case tolerance(mean: Double, max: Int)
        /// Compared after reading our alpha as Chromium does: as limited-range samples of
        /// this bit depth (16–235 scaled), expanded to full range.
        case alphaFromLimitedRange(bitDepth: Int)
        /// Not compared.
        case skip
    }

    /// Files where WebImage differs from Chromium, with the reason; the README lists the
    /// deliberate ones.
    static let differences: [String: (reason: String, check: Difference)] = {
        var list: [String: (String, Difference)] = [:]
        for entry in Corpus.entries where entry.format == "webp" && entry.note.contains("EXIF orientation") {
            list[entry.path] = ("WebP EXIF orientation: WebImage applies it, as Pillow and ImageMagick's auto-orient do; "
                + "Chromium ignores it", .compare(with: ImageDecodeOptions(applyOrientation: false)))
        }
        let outside = "GIF frames outside the logical screen: WebImage keeps the screen size the header "
            + "declares (MANIFEST's expectation); Chromium grows the canvas"
        for path in ["gif/gif-test-suite/animated_transparent_loop_frames_out_of_bounds.gif",
                     "gif/image-rs/issue_1455_oversized.gif", "gif/image-rs/oob.gif", "gif/pygif/image-outside-bg.gif",
                     "gif/pygif/image-overlap-bg.gif", "gif/wuffs/frame-out-of-bounds.gif"] {
            list[path] = (outside, .skip)
        }
        list["gif/pillow/decompression_bomb_extents.gif"] = (
            "declares a 65635×65635 screen: over the default 100-megapixel limit, refused from the header "
                + "(imageTooLarge); Chromium decodes its small frame", .skip)
        list["png/image-png/invalid_palette_index.png"] = (
            "palette indices beyond PLTE: libpng shows them opaque black, Chromium does not", .skip)
        list["png/libavif/circle-trns-before-plte.png"] = (
            "tRNS before PLTE (out of order): Debian's libpng 1.6.39 ignores it, Chromium honours it", .skip)
        let hdr = "HDR (PQ/HLG) samples: Chromium tone-maps them to SDR; WebImage converts to 8 bits without "
            + "tone mapping (MANIFEST notes it)"
        for path in ["avif/sdwebimage/TestHDR.avif", "other/sdwebimage/TestHDR.jxl", "heic/sdwebimage/TestHDR.heic",
                     "avif/libavif/colors_hdr_rec2020.avif", "avif/libavif/unsupported_gainmap_version.avif"] {
            list[path] = (hdr, .skip)
        }
        list["jpeg/sdwebimage/TestICCProfile.jpg"] = (
            "a test profile whose A2B0 table is steep in the shadows: lcms2 and skcms interpolate it differently "
                + "(measured: mean 2.2, one dark cell 20 levels apart)", .tolerance(mean: 2.5, max: 24))
        list["jpeg/jpeg-decoder/reftest/ycck.jpg"] = (
            "SWOP CMYK lookup table: lcms2 and skcms interpolate it differently (measured: mean 1.6, max 9)",
            .tolerance(mean: 2, max: 12))
        // Where the AV1 bitstream and the container disagree, WebImage reads the file as libavif
        // does (0.11 here, 1.x in Pillow's plugin: both give our pixels); Chromium 156 follows the
        // bitstream's colour range.
        list["avif/libavif/clop_irot_imor.avif"] = (
            "10-bit alpha whose AV1 header says limited range: libavif reads AVIF alpha as full range, as "
                + "MIAF specifies; Chromium expands it from limited range", .alphaFromLimitedRange(bitDepth: 10))
        list["avif/libavif/color_grid_alpha_nogrid.avif"] = (
            "8-bit alpha tiles whose AV1 headers say limited range, read as the file above",
            .alphaFromLimitedRange(bitDepth: 8))
        list["avif/libavif/poc_b_506387278.avif"] = (
            "a fuzzing sample whose nclx says full range and whose AV1 header says limited: libavif takes the "
                + "container's (measured: pure red decodes 238,14,14, Chromium 254,0,0)", .skip)
        return list
    }()

    @Test("every file Chromium decodes, we decode to the same pixels")
    func corpusAgreesWithChromium() throws {
        let reference = try ChromiumReference.load()
        #expect(reference.entries.count > 800, "the reference lists \(reference.entries.count) decoded files")
        var undecodable: [String: Int] = [:]
        var compared = 0
        for entry in reference.entries {
            let data = try Corpus.data(entry.path)
            let difference = Self.differences[entry.path]?.check
            if case .skip = difference { continue }
            var options = ImageDecodeOptions()
            if case .compare(let with) = difference { options = with }
            var tolerance = (mean: Self.meanTolerance, max: Self.maxTolerance)
            if case .tolerance(let mean, let max) = difference { tolerance = (mean, max) }
            var alphaBitDepth: Int?
            if case .alphaFromLimitedRange(let depth) = difference { alphaBitDepth = depth }
            if Self.compare(entry, data: data, options: options, tolerance: tolerance, alphaBitDepth: alphaBitDepth) == nil {
                undecodable[ImageFormat.detect(data).rawValue, default: 0] += 1
            } else {
                compared += 1
            }
        }
        if !undecodable.isEmpty {
            print("Chromium reference: skipped, no decoder yet: \(undecodable.sorted { $0.key < $1.key })")
        }
        print("Chromium reference: compared \(compared) of \(reference.entries.count) files")
    }

    /// Decodes `entry`'s file and records an issue where it disagrees with Chromium's decode;
    /// `nil` when no decoder handles the format yet (AVIF, HEIC, JXL until their coders land).
    @discardableResult
    static func compare(_ entry: ChromiumReference.Entry, data: Data, options: ImageDecodeOptions,
                        tolerance: (mean: Double, max: Int), alphaBitDepth: Int? = nil) -> Bool? {
        let image: DecodedImage
        do {
            image = try ImageCodersManager.shared.decode(data, options: options)
        } catch {
            if error.code == .unsupportedFormat { return nil }
            Issue.record("\(entry.path): Chromium decodes it, we fail: \(error)")
            return false
        }
        var pixels = image.pixels
        if let depth = alphaBitDepth { pixels = alphaExpandedFromLimitedRange(pixels, bitDepth: depth) }
        guard pixels.width == entry.width, pixels.height == entry.height else {
            Issue.record("\(entry.path): \(pixels.width)x\(pixels.height), Chromium \(entry.width)x\(entry.height)")
            return false
        }
        let ours = ChromiumReference.reduce(pixels, cols: entry.cols, rows: entry.rows)
        let (mean, largest) = ChromiumReference.difference(ours, entry.rgba)
        guard mean <= tolerance.mean, largest <= tolerance.max else {
            Issue.record("\(entry.path): mean |Δ| \(String(format: "%.2f", mean)), max |Δ| \(largest)")
            return false
        }
        return true
    }

    /// `pixels` with each alpha taken back to its stored sample and expanded from limited
    /// range (16…235 at 8 bits, scaled to `bitDepth`) to full range, as Chromium reads it.
    static func alphaExpandedFromLimitedRange(_ pixels: PixelBuffer, bitDepth: Int) -> PixelBuffer {
        let top = Double((1 << bitDepth) - 1)
        let low = Double(16 << (bitDepth - 8)), span = Double(219 << (bitDepth - 8))
        var bytes = pixels.bytes
        for alpha in stride(from: 3, to: bytes.count, by: 4) {
            let stored = (Double(bytes[alpha]) / 255 * top).rounded()
            bytes[alpha] = UInt8(min(255, max(0, ((stored - low) / span * 255).rounded())))
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, bytes: bytes) ?? pixels
    }
}
