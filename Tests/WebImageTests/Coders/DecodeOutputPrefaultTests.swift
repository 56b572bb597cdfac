#if os(Linux)
import Foundation
import Testing
@testable import WebImageCodecs

/// One-shot JPEG, PNG and WebP decodes fault a fresh output buffer in with one call
/// (`PageFaults.prefault`) instead of one trap per page, as when a memory cache keeps
/// every decode.
///
/// Whether a decode's output lands in fresh pages is up to glibc, which reuses freed
/// blocks first, and a long test process has plenty of those (a fresh clone's run found
/// none for PNG and WebP). So the two halves are checked apart: `prefault` on memory that
/// is fresh by construction (a new anonymous mapping), and each decoder asking for its
/// output to be pre-faulted.
@Suite("Decode outputs: fresh pages faulted in by one call, not trap by trap", .serialized,
       .timeLimit(.minutes(1)))
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

    @Test("fresh memory pre-faulted traps on a few of its pages when written; written without it, on nearly all",
          .enabled(if: PageFaultCounter.isAvailable, "perf_event_open is refused here"))
    func freshMemory() throws {
        let counter = try #require(PageFaultCounter())
        let byteCount = 1 << 20
        let pages = byteCount / Int(sysconf(Int32(_SC_PAGESIZE)))
        func writeNewMapping(prefaulted: Bool) throws -> Int {
            let mapping = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let mapping, mapping != MAP_FAILED else { throw CocoaError(.fileWriteOutOfSpace) }
            defer { munmap(mapping, byteCount) }
            let buffer = UnsafeMutableBufferPointer(start: mapping.assumingMemoryBound(to: UInt8.self), count: byteCount)
            let before = counter.count
            if prefaulted { PageFaults.prefault(buffer) }
            buffer.initialize(repeating: 7)
            return Int(counter.count - before)
        }
        let control = try writeNewMapping(prefaulted: false)
        let prefaulted = try writeNewMapping(prefaulted: true)
        #expect(control >= pages * 3 / 4, "the control trapped on \(control) of \(pages) pages")
        #expect(prefaulted <= pages / 8, "pre-faulted, \(prefaulted) of \(pages) pages trapped")
    }

    @Test("JPEG, PNG and WebP one-shot decodes ask for their output to be pre-faulted",
          arguments: [ImageFormat.jpeg, .png, .webp])
    func decodersAsk(format: ImageFormat) throws {
        let coder: any ImageCoder = switch format {
        case .jpeg: JPEGCoder()
        case .png: PNGCoder()
        default: WebPCoder()
        }
        let data = try coder.encode(Self.source, as: format, options: ImageEncodeOptions(quality: 0.9))
        let before = PageFaults.requests.load(ordering: .relaxed)
        let image = try coder.decode(data, options: ImageDecodeOptions())
        #expect(image.width == Self.width && image.height == Self.height)
        #expect(PageFaults.requests.load(ordering: .relaxed) > before)
    }
}
#endif
