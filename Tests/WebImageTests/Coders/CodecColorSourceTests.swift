import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("AVIF, HEIC and JPEG XL colour profiles reach colour management", .timeLimit(.minutes(2)))
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
}
