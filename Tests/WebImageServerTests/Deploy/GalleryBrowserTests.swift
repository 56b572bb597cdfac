import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs
import WebImageServer
import WebImageTestOrigin

/// `/gallery` in a real browser: headless Chromium (through chromedriver) loads the page
/// from a `webimage serve` child process on 127.0.0.1, at device pixel ratios 1 and 2, and
/// every image must arrive at the size its URL asked for, with real pixels.
@Suite(
    "/gallery in headless Chromium", .serialized,
    .enabled(if: BrowserSession.unavailableReason == nil,
             Comment(rawValue: BrowserSession.unavailableReason ?? "")),
    .timeLimit(.minutes(5)))
struct GalleryBrowserTests {
    /// Where screenshots go: `.build/test-output/` in the package (git-ignored).
    static let outputDirectory = ServeInstance.packageRoot.appendingPathComponent(".build/test-output")

    @Test("every gallery image loads at the size its URL asks for (srcset at 1× and 2×), not blank", arguments: [1, 2])
    func galleryImages(scale: Int) async throws {
        let client = HTTPClient.shared
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-gallery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let sources = try Self.exampleSizes()

        let server = try await ServeInstance.start(
            ["--cache-dir", work.appendingPathComponent("cache").path], log: work.appendingPathComponent("serve.log"), client: client)
        var reports: [GalleryCheck.Report] = []
        var screenshot = Data()
        do {
            let browser = try await BrowserSession.start(work: work, scale: scale, client: client)
            do {
                try await browser.open(server.baseURL + "/gallery")
                reports = try await GalleryCheck.run(in: browser)
                screenshot = try await browser.screenshot()
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        } catch {
            await server.process.stop()
            throw error
        }
        await server.process.stop()

        try FileManager.default.createDirectory(at: Self.outputDirectory, withIntermediateDirectories: true)
        try screenshot.write(to: Self.outputDirectory.appendingPathComponent(scale == 1 ? "gallery.png" : "gallery@\(scale)x.png"))
        #expect(screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "the screenshot is not a PNG")

        let proxied = reports.filter { Self.requestedSize($0.src, sources: sources) != nil }
        #expect(proxied.count >= ExampleImages.names.count, "gallery images through the proxy: \(reports.map(\.src))")
        let problems = GalleryCheck.problems(reports) { Self.requestedSize($0, sources: sources) }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        if scale > 1 {
            #expect(proxied.contains { $0.src.contains("dpr:\(scale)") }, "the browser picked no \(scale)× candidate: \(reports.map(\.src))")
        }
    }

    /// The examples' pixel sizes by name, from decoding them as the proxy does.
    static func exampleSizes() throws -> [String: (width: Int, height: Int)] {
        var sizes: [String: (width: Int, height: Int)] = [:]
        for (name, example) in ExampleImages().images {
            let image = try ImageCodersManager.shared.decode(example.data, options: ImageDecodeOptions(firstFrameOnly: true))
            sizes[name] = (image.width, image.height)
        }
        return sizes
    }

    /// The size a proxy URL (`/{signature}/{options…}/{base64url source}[.ext]`) must produce
    /// from an example source: `rs:` box times `dpr:`, fitted (never enlarged) or filled;
    /// `nil` for anything else.
    static func requestedSize(_ src: String, sources: [String: (width: Int, height: Int)]) -> (width: Int, height: Int)? {
        guard let url = URL(string: src) else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        guard parts.count >= 3, let last = parts.last else { return nil }
        var encoded = String(last.prefix { $0 != "." }).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        encoded += String(repeating: "=", count: (4 - encoded.count % 4) % 4)
        guard let data = Data(base64Encoded: encoded), let source = URL(string: String(decoding: data, as: UTF8.self)),
              source.scheme == ExampleImages.scheme, let name = source.host, let size = sources[name] else { return nil }
        var mode = "fit", box = (width: 0.0, height: 0.0), dpr = 1.0
        for option in parts.dropFirst().dropLast() {
            let fields = option.split(separator: ":").map(String.init)
            switch fields.first {
            case "rs" where fields.count == 4:
                mode = fields[1]
                box = (Double(fields[2]) ?? 0, Double(fields[3]) ?? 0)
            case "dpr" where fields.count == 2:
                dpr = Double(fields[1]) ?? 1
            default:
                break
            }
        }
        let width = Double(size.width), height = Double(size.height)
        // 0 leaves that side free, as imgproxy does.
        let boxWidth = box.width > 0 ? box.width * dpr : .infinity, boxHeight = box.height > 0 ? box.height * dpr : .infinity
        if mode == "fit" || boxWidth.isInfinite || boxHeight.isInfinite {
            let scale = min(boxWidth / width, boxHeight / height, 1)
            return (Int((width * scale).rounded()), Int((height * scale).rounded()))
        }
        let scale = min(width / boxWidth, height / boxHeight, 1)
        return (Int((boxWidth * scale).rounded()), Int((boxHeight * scale).rounded()))
    }
}
