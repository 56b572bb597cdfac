import CLCMS2
import Foundation
import Testing
@testable import WebImageCodecs

/// The lcms2 layer: known profiles give known colours, and the options and fallbacks hold.
@Suite("Color converter")
struct ColorConverterTests {
    /// A Display P3 (DCI-P3 primaries, D65, sRGB curve) PNG of the corpus with an `iCCP` chunk.
    static let p3Path = "png/wuffs/red-blue-gradient.dcip3d65-no-chrm-no-gama.png"

    static func p3Profile() throws -> [UInt8] {
        let data = try Corpus.data(p3Path)
        let profile = data.withUnsafeBytes { p -> [UInt8]? in
            let chunk = PNGChunk.scan(p).chunks.first { $0.type == PNGColorChunks.iccp }
            return chunk.flatMap { PNGColorChunks.iccProfile(UnsafeRawBufferPointer(rebasing: p[$0.data])) }
        }
        return try #require(profile)
    }

    static func pixel(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> PixelBuffer {
        PixelBuffer(width: 1, height: 1, bytes: [r, g, b, a])!
    }

    @Test("iCCP inflates to a whole ICC profile")
    func inflatesProfile() throws {
        let profile = try Self.p3Profile()
        let declared = profile.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(declared == profile.count)
        #expect(Array(profile[36..<40]) == Array("acsp".utf8))
    }

    @Test("a corrupt zlib stream inflates to nothing")
    func corruptStream() throws {
        let data = try Corpus.data(Self.p3Path)
        var bytes = [UInt8](data)
        let chunk = try #require(bytes.withUnsafeBytes { PNGChunk.scan($0).chunks.first { $0.type == PNGColorChunks.iccp } })
        bytes[chunk.data.upperBound - 6] ^= 0xFF  // inside the deflate data or its checksum
        let payload = bytes.withUnsafeBytes { PNGColorChunks.iccProfile(UnsafeRawBufferPointer(rebasing: $0[chunk.data])) }
        #expect(payload == nil)
    }

    @Test("a truncated stream, or one inflating past the profile limit, gives nothing")
    func truncatedAndOversizedStreams() throws {
        let data = try Corpus.data(Self.p3Path)
        let profileOfCutStream = data.withUnsafeBytes { p -> [UInt8]?? in
            guard let chunk = PNGChunk.scan(p).chunks.first(where: { $0.type == PNGColorChunks.iccp }) else { return nil }
            return .some(PNGColorChunks.iccProfile(UnsafeRawBufferPointer(rebasing: p[chunk.data.dropLast(8)])))
        }
        let profile = try #require(profileOfCutStream, "the file has an iCCP chunk")
        #expect(profile == nil)
        // zlib stored blocks of zeros: the limit itself inflates, one byte more does not.
        func iccp(inflatingTo count: Int) -> [UInt8] {
            var stream: [UInt8] = Array("x".utf8) + [0, 0, 0x78, 0x01]
            var left = count
            repeat {
                let n = min(left, 65_535)
                left -= n
                stream += [left == 0 ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
                stream += [UInt8](repeating: 0, count: n)
            } while left > 0
            let a = 1, b = count % 65_521  // Adler-32 of `count` zeros
            return stream + [UInt8(b >> 8), UInt8(b & 0xFF), UInt8(a >> 8), UInt8(a & 0xFF)]
        }
        let limit = ColorConversion.maxProfileBytes
        let fits = iccp(inflatingTo: limit).withUnsafeBytes { PNGColorChunks.iccProfile($0) }
        #expect(fits?.count == limit)
        #expect(iccp(inflatingTo: limit + 1).withUnsafeBytes { PNGColorChunks.iccProfile($0) } == nil)
    }

    @Test("sRGB red written in Display P3 converts back to sRGB red")
    func displayP3ToSRGB() throws {
        // sRGB (255, 0, 0) is (234, 51, 35) in Display P3 (same curve, wider primaries).
        var pixels = Self.pixel(234, 51, 35, 77)
        ColorConverter.convertToSRGB(&pixels, from: .iccProfile(try Self.p3Profile()), options: ImageDecodeOptions())
        let out = try #require(pixels[0, 0])
        // Within the rounding of 8-bit input (±0.5 of 234, 51, 35 is ±2 after the wider gamut).
        #expect(out.r >= 250 && out.g <= 4 && out.b <= 4, "\(out)")
        #expect(out.a == 77, "alpha is copied through")
    }

    @Test("keepStoredSamples leaves the pixels alone")
    func keepStoredSamples() throws {
        var pixels = Self.pixel(234, 51, 35)
        ColorConverter.convertToSRGB(&pixels, from: .iccProfile(try Self.p3Profile()),
                                     options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        #expect(pixels.bytes == [234, 51, 35, 255])
    }

    @Test("a PNG decoded with keepStoredSamples equals the same PNG without its iCCP chunk")
    func keepStoredSamplesDecode() throws {
        let data = try Corpus.data(Self.p3Path)
        let stripped = data.withUnsafeBytes { p -> Data in
            var out = Data(p.prefix(8))
            for chunk in PNGChunk.scan(p).chunks where chunk.type != PNGColorChunks.iccp {
                out.append(contentsOf: p[chunk.whole])
            }
            return out
        }
        let kept = try PNGCoder().decode(data, options: ImageDecodeOptions(colorManagement: .keepStoredSamples))
        let untagged = try PNGCoder().decode(stripped, options: ImageDecodeOptions())
        let converted = try PNGCoder().decode(data, options: ImageDecodeOptions())
        #expect(kept.pixels == untagged.pixels)
        #expect(converted.pixels != untagged.pixels, "the default converts P3 to sRGB")
    }

    @Test("an unparsable profile is ignored, not an error")
    func brokenProfile() {
        var pixels = Self.pixel(10, 20, 30)
        let garbage = [UInt8](repeating: 0x5A, count: 512)
        ColorConverter.convertToSRGB(&pixels, from: .iccProfile(garbage), options: ImageDecodeOptions())
        #expect(pixels.bytes == [10, 20, 30, 255])
        var cmyk = Self.pixel(0, 0, 0, 0)
        #expect(!ColorConverter.convertCMYK(&cmyk, rows: 0..<1, profile: garbage, isInverted: false,
                                            options: ImageDecodeOptions()))
    }

    @Test("an sRGB profile needs no conversion")
    func srgbProfileIsIdentity() throws {
        // The corpus's sRGB-tagged JPEG carries a real sRGB profile.
        let data = try Corpus.data("jpeg/jpeg-decoder/reftest/mozilla_jpg-srgb-icc.jpg")
        let profile = try #require(data.withUnsafeBytes { p -> [UInt8]? in
            let jpeg = try? JPEGDecompressor()
            jpeg?.setInput(p, isComplete: true)
            _ = try? jpeg?.readHeader()
            return jpeg?.iccProfile()
        })
        guard case .none = ColorTransformCache.shared.conversion(for: .iccProfile(profile), input: .rgba) else {
            Issue.record("an sRGB profile should be recognised as needing no transform")
            return
        }
    }

    @Test("PNG gAMA 1.0 (linear samples) encodes mid-grey with the sRGB curve")
    func linearGamma() throws {
        var pixels = Self.pixel(128, 128, 128)
        ColorConverter.convertToSRGB(&pixels, from: .gamma(1.0, chromaticities: nil), options: ImageDecodeOptions())
        let linear = 128.0 / 255
        let encoded = 1.055 * pow(linear, 1 / 2.4) - 0.055
        let expected = Int((encoded * 255).rounded())
        let out = try #require(pixels[0, 0])
        for channel in [out.r, out.g, out.b] { #expect(abs(Int(channel) - expected) <= 1, "\(out) vs \(expected)") }
    }

    /// A gray ICC profile with a linear tone curve and a D50 white, made by lcms2 here.
    static func linearGrayProfile() throws -> [UInt8] {
        let curve = try #require(cmsBuildGamma(nil, 1.0))
        defer { cmsFreeToneCurve(curve) }
        let profile = try #require(cmsCreateGrayProfile(cmsD50_xyY(), curve))
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        #expect(cmsSaveProfileToMem(profile, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        #expect(cmsSaveProfileToMem(profile, &bytes, &size) != 0)
        return bytes
    }

    @Test("a gray profile maps each level to a neutral sRGB grey: a linear curve's mid-grey takes the sRGB curve, black and white stay")
    func grayProfile() throws {
        let profile = try Self.linearGrayProfile()
        var pixels = PixelBuffer(width: 3, height: 1, bytes: [0, 0, 0, 255, 128, 128, 128, 90, 255, 255, 255, 255])!
        ColorConverter.convertToSRGB(&pixels, from: .iccProfile(profile), options: ImageDecodeOptions())
        let linear = 128.0 / 255
        let expected = Int(((1.055 * pow(linear, 1 / 2.4) - 0.055) * 255).rounded())
        let (black, mid, white) = (try #require(pixels[0, 0]), try #require(pixels[1, 0]), try #require(pixels[2, 0]))
        for channel in [mid.r, mid.g, mid.b] { #expect(abs(Int(channel) - expected) <= 1, "\(mid) vs \(expected)") }
        #expect(mid.a == 90, "alpha is copied through")
        #expect([black.r, black.g, black.b].allSatisfy { $0 <= 1 } && [white.r, white.g, white.b].allSatisfy { $0 >= 254 })
    }

    @Test("CICP sRGB needs no conversion; BT.2020 primaries change colours")
    func cicp() {
        #expect(CICP(primaries: 1, transfer: 13).isSRGB)
        var pixels = Self.pixel(0, 200, 0)
        ColorConverter.convertToSRGB(&pixels, from: .cicp(CICP(primaries: 9, transfer: 13)), options: ImageDecodeOptions())
        #expect(pixels.bytes != [0, 200, 0, 255])
        var hdr = Self.pixel(0, 200, 0)
        ColorConverter.convertToSRGB(&hdr, from: .cicp(CICP(primaries: 9, transfer: 16)), options: ImageDecodeOptions())
        #expect(hdr.bytes == [0, 200, 0, 255], "PQ is kept as stored")
    }

    @Test("the transform cache stays within its capacity")
    func cacheBound() {
        let cache = ColorTransformCache(capacity: 2)
        for gamma in [0.5, 0.6, 0.7] {
            _ = cache.conversion(for: .gamma(gamma, chromaticities: nil), input: .rgba)
        }
        #expect(cache.count == 2)
    }
}
