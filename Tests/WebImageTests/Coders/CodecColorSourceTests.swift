import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("AVIF, HEIC, JPEG XL and WebP colour profiles reach colour management", .timeLimit(.minutes(2)))
struct CodecColorSourceTests {
    @Test("an embedded DCI-P3 profile converts the stored samples to sRGB, as ColorConverter does",
          arguments: ["p3.avif", "p3.heic", "p3-lossless.jxl"])
    func wideGamut(file: String) throws {
        let icc = try [UInt8](Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("dci-p3-d65.icc")))
        let data = file.hasSuffix(".jxl")
            ? try JXLSamples.still(WebPSamples.gradient(width: 40, height: 30), icc: icc)
            : try Data(contentsOf: GeneratedFixtures.root.appendingPathComponent(file))
        let converted = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let stored = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        var expected = stored.pixels
        ColorConverter.convertToSRGB(&expected, from: .iccProfile(icc), options: ImageDecodeOptions())
        #expect(converted.pixels == expected)
        let d = try #require(GeneratedFixtures.difference(converted.pixels, stored.pixels))
        #expect(d.max > 10, "P3 samples must move when shown as sRGB (moved by up to \(d.max))")
    }

    @Test("sRGB-tagged files decode the same with and without colour management", arguments: [
        "avif/pillow/icc_profile.avif", "heic/sdwebimage/TestImage.heic", "heic/pillow/hopper.heif",
    ])
    func sRGB(path: String) throws {
        let data = try Corpus.data(path)
        let converted = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let stored = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        #expect(converted.pixels == stored.pixels)
    }

    /// `webp` (an extended file, `VP8X` first) with an `ICCP` chunk of `icc` spliced in
    /// after `VP8X`, where the container puts it, and the `VP8X` ICC flag set.
    static func withICCP(_ webp: Data, icc: [UInt8]) throws -> Data {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        var bytes = [UInt8](webp)
        try #require(bytes.count > 30 && Array(bytes[12..<16]) == Array("VP8X".utf8))
        bytes[20] |= 0x20
        let chunk = Array("ICCP".utf8) + le32(icc.count) + icc + (icc.count % 2 == 1 ? [0] : [])
        bytes.insert(contentsOf: chunk, at: 30)
        bytes.replaceSubrange(4..<8, with: le32(bytes.count - 8))
        return Data(bytes)
    }

    static func p3Profile() throws -> [UInt8] {
        try [UInt8](Data(contentsOf: GeneratedFixtures.root.appendingPathComponent("dci-p3-d65.icc")))
    }

    @Test("every frame of an ICC-tagged animated WebP converts, eagerly and lazily alike")
    func animatedWebP() throws {
        let icc = try Self.p3Profile()
        let data = try Self.withICCP(Corpus.data("webp/image-webp/animated_random_lossy.webp"), icc: icc)
        let converted = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
        let stored = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        try #require(converted.frames.count > 1 && converted.frames.count == stored.frames.count)
        let lazy = try #require(try AnimatedImage(data: data))
        var largest = 0
        for (index, frame) in stored.frames.enumerated() {
            var expected = frame.pixels
            ColorConverter.convertToSRGB(&expected, from: .iccProfile(icc), options: ImageDecodeOptions())
            #expect(converted.frames[index].pixels == expected, "frame \(index)")
            #expect(try lazy.frame(at: index).pixels == expected, "lazy frame \(index)")
            largest = max(largest, GeneratedFixtures.difference(expected, frame.pixels)?.max ?? 0)
        }
        #expect(largest > 10, "P3 samples must move when shown as sRGB (moved by up to \(largest))")
    }

    @Test("an ICC-tagged WebP arriving in pieces converts its partial and final images like a one-shot decode")
    func incrementalWebP() throws {
        let icc = try Self.p3Profile()
        let data = try Self.withICCP(Corpus.data("webp/pillow/flower.webp"), icc: icc)  // lossy, VP8X
        let oneShot = try WebPCoder().decode(data, options: ImageDecodeOptions())
        let stored = try WebPCoder().decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        #expect((GeneratedFixtures.difference(oneShot.pixels, stored.pixels)?.max ?? 0) > 10)
        let decoder = WebPIncrementalDecoder()
        var partials = 0
        for end in stride(from: data.count / 8, to: data.count, by: data.count / 8) {
            guard let partial = try decoder.decode(data.prefix(end), isComplete: false) else { continue }
            partials += 1
            // Decoded rows carry converted colours; rows not decoded yet stay transparent.
            let rows = (0..<partial.pixels.height).filter { (partial.pixels[0, $0]?.a ?? 0) != 0 }
            for y in rows { #expect(partial.pixels[0, y] == oneShot.pixels[0, y], "row \(y) of a partial image") }
        }
        let final = try #require(try decoder.decode(data, isComplete: true))
        #expect(final.pixels == oneShot.pixels)
        #expect(partials > 0)
    }
}
