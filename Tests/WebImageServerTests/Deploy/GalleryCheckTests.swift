import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// The gallery check can fail: on a page of the test's own (served by a loopback origin)
/// with one good image, one that is missing, one that is blank and one of the wrong size,
/// it names exactly the three bad ones.
@Suite(
    "GalleryCheck on a page with broken images",
    .enabled(if: BrowserSession.unavailableReason == nil,
             Comment(rawValue: BrowserSession.unavailableReason ?? "")),
    .timeLimit(.minutes(3)))
struct GalleryCheckTests {
    @Test("a missing, a blank and a wrongly sized image each fail the check; the good one passes")
    func brokenImagesAreReported() async throws {
        let client = HTTPClient.shared
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let origin = try await TestOrigin.start()
        origin.route("/good.png", .init(body: try Self.png(64, 48) { x, y in (UInt8(x * 4), UInt8(y * 5), 128) }, contentType: "image/png"))
        origin.route("/blank.png", .init(body: try Self.png(64, 48) { _, _ in (255, 255, 255) }, contentType: "image/png"))
        origin.route("/small.png", .init(body: try Self.png(32, 24) { x, y in (UInt8(x * 8), 40, UInt8(y * 10)) }, contentType: "image/png"))
        origin.route("/page.html", .init(body: Array("""
            <!doctype html><title>check</title>
            <img src="/good.png"><img src="/missing.png"><img src="/blank.png"><img src="/small.png" loading="lazy">
            """.utf8), contentType: "text/html"))

        var reports: [GalleryCheck.Report] = []
        do {
            let browser = try await BrowserSession.start(work: work, scale: 1, client: client)
            do {
                try await browser.open(origin.url("/page.html").absoluteString)
                reports = try await GalleryCheck.run(in: browser)
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()

        #expect(reports.count == 4)
        let problems = GalleryCheck.problems(reports) { _ in (64, 48) }
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.contains("/missing.png") && $0.contains("not loaded") }, "\(problems)")
        #expect(problems.contains { $0.contains("/blank.png") && $0.contains("blank") }, "\(problems)")
        #expect(problems.contains { $0.contains("/small.png") && $0.contains("32×24") }, "\(problems)")
        #expect(!problems.contains { $0.contains("/good.png") }, "\(problems)")
    }

    /// An opaque PNG whose pixel (x, y) is `color(x, y)`.
    static func png(_ width: Int, _ height: Int, _ color: (Int, Int) -> (UInt8, UInt8, UInt8)) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = color(x, y)
                bytes += [r, g, b, 255]
            }
        }
        guard let pixels = PixelBuffer(width: width, height: height, bytes: bytes),
              let image = DecodedImage(frames: [ImageFrame(pixels: pixels, duration: 0)], format: .png) else {
            throw DeployTestError("could not make a \(width)×\(height) image")
        }
        return Array(try ImageCodersManager.shared.encode(image, as: .png, options: ImageEncodeOptions()))
    }
}
