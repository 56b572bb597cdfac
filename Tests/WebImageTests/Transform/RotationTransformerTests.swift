import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageCompat

@Suite("ImageRotationTransformer", .timeLimit(.minutes(1)))
struct RotationTransformerTests {
    typealias T = TransformTestImages
    static let origin = RGBA(r: 0, g: 0, b: 7)

    @Test("90° counter-clockwise swaps the size and moves the top-left corner to the bottom-left")
    func quarterTurn() throws {
        let out = try #require(ImageRotationTransformer(angle: 90, fitSize: true)
            .transform(T.still(T.coordinates(5, 3)), forKey: ""))
        #expect(out.width == 3 && out.height == 5)
        #expect(out.pixels[0, 4] == Self.origin)
        // The top-right corner comes to the top-left.
        #expect(out.pixels[0, 0] == RGBA(r: 4, g: 0, b: 7))
    }

    @Test("-90° and 270° agree: the top-left corner goes to the top-right")
    func clockwise() throws {
        let image = T.still(T.coordinates(5, 3))
        let a = try #require(ImageRotationTransformer(angle: -90).transform(image, forKey: ""))
        let b = try #require(ImageRotationTransformer(angle: 270).transform(image, forKey: ""))
        #expect(a == b)
        #expect(a.pixels[2, 0] == Self.origin)
    }

    @Test("180° without fitting keeps the size and moves the corner diagonally")
    func halfTurn() throws {
        let out = try #require(ImageRotationTransformer(angle: 180, fitSize: false)
            .transform(T.still(T.coordinates(5, 3)), forKey: ""))
        #expect(out.width == 5 && out.height == 3)
        #expect(out.pixels[4, 2] == Self.origin)
    }

    @Test("90° without fitting keeps the canvas, cuts the ends and leaves the rest transparent")
    func quarterTurnKeepingSize() throws {
        let out = try #require(ImageRotationTransformer(angle: 90, fitSize: false)
            .transform(T.still(T.coordinates(5, 3)), forKey: ""))
        #expect(out.width == 5 && out.height == 3)
        #expect(out.pixels[2, 1] == RGBA(r: 2, g: 1, b: 7))
        #expect(out.pixels[0, 0]?.a == 0)
        #expect(out.pixels[4, 2]?.a == 0)
    }

    @Test("45° with fitSize grows the canvas to the bounding box; corners transparent, edges anti-aliased")
    func diagonalFit() throws {
        let out = try #require(ImageRotationTransformer(angle: 45, fitSize: true)
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        // 20·√2 = 28.28 → 29.
        #expect(out.width == 29 && out.height == 29)
        #expect(out.pixels[0, 0]?.a == 0)
        #expect(out.pixels[28, 28]?.a == 0)
        #expect(out.pixels[14, 14] == T.red)
        // The rotated square's corners touch the canvas edge midpoints.
        #expect((out.pixels[14, 0]?.a ?? 0) > 0)
        let alphas = stride(from: 3, to: out.pixels.bytes.count, by: 4).map { out.pixels.bytes[$0] }
        #expect(alphas.contains { $0 > 0 && $0 < 255 })
        // Colour is not darkened where alpha fades.
        let partial = stride(from: 0, to: out.pixels.bytes.count, by: 4)
            .filter { out.pixels.bytes[$0 + 3] > 20 && out.pixels.bytes[$0 + 3] < 235 }
        #expect(!partial.isEmpty && partial.allSatisfy { out.pixels.bytes[$0] == 255 })
    }

    @Test("45° without fitting keeps the size and cuts the corners")
    func diagonalKeep() throws {
        let out = try #require(ImageRotationTransformer(angle: 45, fitSize: false)
            .transform(T.still(T.filled(20, 20, T.red)), forKey: ""))
        #expect(out.width == 20 && out.height == 20)
        #expect(out.pixels[0, 0]?.a == 0)
        #expect(out.pixels[10, 0] == T.red)
    }

    @Test("0° and 360° leave the pixels as they were")
    func fullTurn() throws {
        let image = T.still(T.coordinates(5, 3))
        #expect(ImageRotationTransformer(angle: 0).transform(image, forKey: "") == image)
        #expect(ImageRotationTransformer(angle: 360, fitSize: false).transform(image, forKey: "") == image)
    }

    @Test("a non-finite angle fails")
    func nonFinite() {
        #expect(ImageRotationTransformer(angle: .nan).transform(T.still(T.coordinates(5, 3)), forKey: "") == nil)
    }

    @Test("key names angle and fitting")
    func key() {
        #expect(ImageRotationTransformer(angle: 45, fitSize: true).transformerKey
            == "ImageRotationTransformer(angle:45,fitSize:true)")
        #expect(ImageRotationTransformer(angle: -22.5, fitSize: false).transformerKey
            == "ImageRotationTransformer(angle:-22.5,fitSize:false)")
    }
}
