import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// The README's promise that imgproxy URL builders work unchanged, tried as their users
/// try it: two builders published on PyPI (`imgproxy` 1.0.0 and `pyimgproxy` 0.4, installed
/// by `make test-venv`) write URLs with their own APIs for a `webimage serve` started from an
/// imgproxy deployment's environment (`IMGPROXY_KEY`, `IMGPROXY_SALT`, `IMGPROXY_URL` for the
/// builders); every URL gets the status, size, format and header imgproxy's documentation
/// gives. The expectations are written beside each case in
/// `Tests/Fixtures/builders/imgproxy_builders.py`, worked out by hand from the docs.
@Suite("imgproxy URL builders from PyPI against webimage serve", .serialized)
struct URLBuilderTests {
    static let python = ServeInstance.packageRoot.appendingPathComponent(".build-test/venv/bin/python")
    static let script = ServeInstance.packageRoot.appendingPathComponent("Tests/Fixtures/builders/imgproxy_builders.py")
    static let enabled = FileManager.default.isExecutableFile(atPath: ServeInstance.executable.path)

    /// One builder URL and imgproxy's answer to it.
    struct Case: Decodable {
        let builder: String
        let what: String
        let url: String
        let status: Int
        let size: [Int]?
        let format: String?
        let header: [String]?
    }

    /// 800×600: a 20 px white frame around a gradient no channel of which is near white, so
    /// `trim` has exactly the frame to cut.
    static func framedPNG() throws -> [UInt8] {
        let (width, height, frame) = (800, 600, 20)
        let pixels = PixelBuffer(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let inside = x >= frame && x < width - frame && y >= frame && y < height - frame
                    out[i] = inside ? UInt8(20 + x * 180 / width) : 255
                    out[i + 1] = inside ? UInt8(20 + y * 180 / height) : 255
                    out[i + 2] = inside ? 90 : 255
                    out[i + 3] = 255
                }
            }
        }
        return Array(try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: ImageEncodeOptions()))
    }

    /// Runs the builders' script with `environment`; the cases it wrote.
    static func buildURLs(source: URL, environment: [String: String], work: URL) async throws -> [Case] {
        let out = work.appendingPathComponent("cases-\(UUID().uuidString).json")
        let run = try ChildProcess(
            "imgproxy_builders.py", executable: python, arguments: [script.path, source.absoluteString, out.path],
            environment: environment, log: work.appendingPathComponent("builders.log"))
        guard await run.waitForExit(timeout: .seconds(60)), run.process.terminationStatus == 0 else {
            await run.stop()
            throw DeployTestError("the builders' script failed:\n\(run.logTail)")
        }
        return try JSONDecoder().decode([Case].self, from: Data(contentsOf: out))
    }

    /// Starts `serve` with `environment`, lets the builders write their URLs for it and checks
    /// the answers of those `selected` picks (all of them by default).
    static func check(environment: [String: String], work: URL, selected: (Case) -> Bool = { _ in true }) async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/frame.png", .init(body: try framedPNG(), contentType: "image/png"))
            // An imgproxy deployment's environment: loopback sources are allowed only because
            // the origin here is on loopback.
            let serverEnvironment = environment.merging(["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"]) { $1 }
            try await ServeInstance.with(
                ["--no-cache"], environment: serverEnvironment, unsigned: false,
                log: work.appendingPathComponent("serve.log"), client: .shared
            ) { serve in
                var builderEnvironment = environment
                builderEnvironment["IMGPROXY_URL"] = serve.baseURL
                let cases = try await buildURLs(source: origin.url("/frame.png"), environment: builderEnvironment, work: work)
                #expect(cases.count >= 70)
                for c in cases where selected(c) {
                    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: c.url), timeout: .seconds(60))
                    let body = Data(buffer: try await response.body.collect(upTo: 64 << 20))
                    let label = "\(c.builder), \(c.what): \(c.url)"
                    #expect(Int(response.status.code) == c.status, "\(label) → \(response.status.code) \(String(decoding: body.prefix(300), as: UTF8.self))")
                    guard Int(response.status.code) == 200, c.status == 200 else { continue }
                    let image = try ImageCodersManager.shared.decode(body, options: ImageDecodeOptions())
                    if let size = c.size {
                        #expect([image.width, image.height] == size, "\(label) → \(image.width)x\(image.height), imgproxy gives \(size[0])x\(size[1])")
                    }
                    if let format = c.format {
                        #expect(image.format.rawValue == format, "\(label) → \(image.format)")
                    }
                    if let header = c.header, header.count == 2 {
                        let value = response.headers.first(name: header[0]) ?? ""
                        #expect(value.hasPrefix(header[1]), "\(label) → \(header[0]): \(value)")
                    }
                }
            }
        }
    }

    static func workDirectory() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-builders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }

    @Test("a signed deployment (IMGPROXY_KEY/IMGPROXY_SALT): 71 URLs from both builders", .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(3)))
    func signedDeployment() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await Self.check(environment: [
            "IMGPROXY_KEY": "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            "IMGPROXY_SALT": "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5",
        ], work: work)
    }

    @Test("an unsigned deployment: the builders' placeholder signatures (insecure, _) pass", .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(3)))
    func unsignedDeployment() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        // The signatures are what differs; a few sizes show the rest is the same.
        let picked = ["defaults (rs:auto:0:0:0, g:ce)", "fit 300x200", "URL without a key", "URL with another key",
                      "no options (plain source)", "resize fit 300x200", "crop 200x100 nowe", "source with a query (base64)"]
        try await Self.check(environment: ["IMGPROXY_KEY": "", "IMGPROXY_SALT": ""], work: work) { picked.contains($0.what) }
    }
}
