import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// `ImageLoadersManager.allowedSchemes`: each built-in scheme can be switched off, and a
/// switched-off URL fails with invalidURL before any I/O.
@Suite("Loader schemes switch", .timeLimit(.minutes(1)))
struct LoaderSchemesTests {
    @Test("http, https and data are on by default; file: is opt-in")
    func defaults() {
        #expect(ImageLoadersManager.shared.allowedSchemes == .default)
        #expect(ImageLoadersManager().allowedSchemes == [.http, .https, .data])
        #expect(LoaderSchemes.all == [.http, .https, .data, .file])
        #expect(LoaderSchemes(scheme: "HTTPS") == .https)
        #expect(LoaderSchemes(scheme: "ftp") == nil)
    }

    @Test("each scheme switched off fails with invalidURL and touches nothing",
          arguments: ["http", "https", "data", "file"])
    func switchedOff(scheme: String) async throws {
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: LoaderTestKit.config())
            let dir = try TemporaryDirectory()
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 4, height: 4)
            let file = dir.url.appendingPathComponent("a.raw")
            try Data(bytes).write(to: file)
            origin.route("/a.raw", .init(body: bytes))
            let urls: [String: URL] = [
                "http": origin.url("/a.raw"),
                // Nothing listens for TLS on this port: had it been tried, another code would come.
                "https": try #require(URL(string: "https://127.0.0.1:\(origin.port)/a.raw")),
                "data": try #require(URL(string: "data:application/octet-stream;base64," + Data(bytes).base64EncodedString())),
                "file": file,
            ]
            let url = try #require(urls[scheme])
            let member = try #require(LoaderSchemes(scheme: scheme))
            let loaders = ImageLoadersManager(loaders: [FileImageLoader(), DataURLImageLoader(), downloader])
            loaders.allowedSchemes = .all
            let context = WebImageContext.with { $0.imageCoder = LoaderTestKit.coders }

            loaders.allowedSchemes.remove(member)
            #expect(!loaders.canRequestImage(for: url))
            let r = LoadRecorder()
            r.request(loaders, url, context: context)
            let error = await r.finalError()
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains("switched off") == true, "\(String(describing: error))")
            #expect(origin.requestLog.isEmpty)
            // The others stay on.
            for (other, otherURL) in urls where other != scheme && other != "https" {
                #expect(loaders.canRequestImage(for: otherURL), "\(other)")
            }

            if scheme != "https" {
                loaders.allowedSchemes.insert(member)
                let again = LoadRecorder()
                again.request(loaders, url, context: context)
                #expect(try await again.final().get().image?.pixels == pixels)
            }
            await downloader.shutdown()
        }
    }

    @Test("file: is refused by ImageManager.shared without reading anything, through both APIs")
    func fileOffInSharedManager() async throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("shared-\(UUID().uuidString).png")
        try ManagerTestKit.png().write(to: file)
        let error = await #expect(throws: WebImageError.self) { try await ImageManager.shared.loadImage(with: file) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("switched off") == true, "\(String(describing: error))")
        let recorder = ResultRecorder()
        ImageManager.shared.loadImage(with: file, completed: recorder.record)
        #expect(await recorder.wait(for: 1).first?.error?.code == .invalidURL)
        // The file was never read: its access is not recorded anywhere, and a cache miss stays a miss.
        #expect(await ImageCache.shared.containsImage(forKey: file.absoluteString, cacheType: .all) == .none)
    }

    @Test("switching file on is one line and reaches the manager")
    func fileOnThroughManager() async throws {
        let dir = try TemporaryDirectory()
        let file = dir.url.appendingPathComponent("a.png")
        try ManagerTestKit.png().write(to: file)
        let loaders = ImageLoadersManager(loaders: [FileImageLoader(coders: ManagerTestKit.coders)])
        let manager = ImageManager(cache: ImageCache(namespace: "n", directory: dir.url.appendingPathComponent("cache")), loader: loaders)
        let error = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: file) }
        #expect(error?.code == .invalidURL)
        #expect(!manager.failedURLs.contains(file), "a refused scheme does not block the URL")
        loaders.allowedSchemes.insert(.file)
        #expect(try await manager.loadImage(with: file).image.width == 32)
    }
}
