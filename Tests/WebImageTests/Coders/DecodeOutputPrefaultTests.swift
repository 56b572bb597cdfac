#if os(Linux)
import CMalloc
import Foundation
import Testing
@testable import WebImageCodecs

/// One-shot JPEG, PNG and WebP decodes fault a fresh output buffer in with one call
/// (`PageFaults.prefault`) instead of one trap per page, as when a memory cache keeps
/// every decode.
///
/// Whether an output lands in fresh pages is up to glibc, which reuses freed blocks
/// first, and a test process has plenty of those. So the test starts with
/// `malloc_trim(0)`, which hands the pages of every free block back to the kernel, and
/// each decode follows a control buffer of its size, kept and written by hand: a decode
/// counts only when its control trapped on nearly every page, so fresh memory was at hand.
@Suite("Decode outputs: fresh pages faulted in by one call, not trap by trap", .serialized,
       .timeLimit(.minutes(1)), .enabled(if: PageFaultCounter.isAvailable, "perf_event_open is refused here"))
struct DecodeOutputPrefaultTests {
    /// 600×400 RGBA: 960,000 bytes, 234 pages, under the 4 MB where JPEG asks for huge pages.
    static let width = 600, height = 400

    /// A smooth picture with some detail, so every encoder produces an ordinary file.
    static let source: DecodedImage = {
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                bytes[i] = UInt8(x * 255 / width)
                bytes[i + 1] = UInt8(y * 255 / height)
                bytes[i + 2] = UInt8((x ^ y) & 0xFF)
            }
        }
        let pixels = PixelBuffer(width: width, height: height, bytes: bytes) ?? PixelBuffer(width: 0, height: 0)
        return DecodedImage(pixels: pixels, format: .png)
    }()

    @Test("a JPEG decode traps on a few pages of its 234-page output at most")
    func jpeg() throws { try Self.checkDecodes(by: JPEGCoder(), format: .jpeg) }

    @Test("a PNG decode traps on a few pages of its 234-page output at most")
    func png() throws { try Self.checkDecodes(by: PNGCoder(), format: .png) }

    @Test("a WebP decode traps on a few pages of its 234-page output at most")
    func webp() throws { try Self.checkDecodes(by: WebPCoder(), format: .webp) }

    static func checkDecodes(by coder: some ImageCoder, format: ImageFormat) throws {
        // Given a file whose decode needs 234 pages, and a counter of this thread's traps
        let data = try coder.encode(source, as: format, options: ImageEncodeOptions(quality: 0.9))
        let counter = try #require(PageFaultCounter())
        let byteCount = width * height * 4
        let pages = byteCount / Int(sysconf(Int32(_SC_PAGESIZE)))
        var kept: [(control: [UInt8], image: DecodedImage)] = []
        var fresh: [(control: Int, decode: Int)] = []

        // When the free blocks are trimmed, the file decoded once (so the decoder's own
        // scratch memory, such as PNG's inflated rows, is a block it then reuses), then a
        // dozen times, every image kept, each decode right after a control buffer
        _ = malloc_trim(0)
        _ = try coder.decode(data, options: ImageDecodeOptions())
        for _ in 0..<12 {
            var before = counter.count
            let control = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
                buffer.initialize(repeating: 7)
                count = byteCount
            }
            let controlTraps = Int(counter.count - before)
            before = counter.count
            let image = try coder.decode(data, options: ImageDecodeOptions())
            let decodeTraps = Int(counter.count - before)
            kept.append((control, image))
            if controlTraps >= pages * 3 / 4 { fresh.append((controlTraps, decodeTraps)) }
        }

        // Then the decodes made in fresh memory trap on a small fraction of their pages
        // (written one by one, they would trap on all of them, as their controls did)
        #expect(kept.allSatisfy { $0.image.width == width && $0.image.height == height })
        try #require(fresh.count >= 3, "only \(fresh.count) of 12 controls found fresh memory")
        #expect(fresh.allSatisfy { $0.decode <= pages / 8 }, "(control, decode) traps \(fresh) for \(pages) pages")
    }
}
#endif
