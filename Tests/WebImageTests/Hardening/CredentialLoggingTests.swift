import Foundation
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestOrigin

/// A password in an image URL stays out of what WebImage shows: the manager's errors
/// (also the failed-URL block) and the `webimage fetch` output.
@Suite("Hardening: credentials never shown", .serialized, .timeLimit(.minutes(2)))
struct CredentialLoggingTests {
    @Test("the manager's errors, first failure and blocked retry, carry no password")
    func managerErrors() async throws {
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: DownloaderConfig())
            let dir = try TemporaryDirectory()
            let manager = ImageManager(cache: ImageCache(namespace: "n", directory: dir.url), loader: downloader)
            let url = try #require(URL(string: "http://user:secret@127.0.0.1:\(origin.port)/missing.png"))
            let first = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            let blocked = await #expect(throws: WebImageError.self) { try await manager.loadImage(with: url) }
            #expect(first?.code == .invalidDownloadStatusCode)
            #expect(blocked?.code == .blackListed)
            #expect(blocked?.message.contains("***:***@127.0.0.1") == true, "\(String(describing: blocked))")
            for error in [first, blocked].compactMap({ $0 }) {
                #expect(!"\(error)".contains("secret") && !error.message.contains("secret"), "\(error)")
            }
            await downloader.shutdown()
        }
    }

    @Test("webimage fetch masks the password in its JSON and text output")
    func fetchOutput() async throws {
        try await TestOrigin.with { origin in
            let cache = try TemporaryDirectory()
            let url = "http://user:secret@127.0.0.1:\(origin.port)/missing.png"
            let json = try await WebImageTool.run(["fetch", url, "--cache-dir", cache.path, "--json"])
            #expect(json.status == 1)
            let line = try #require(try json.jsonLines().first)
            #expect(line["url"] as? String == "http://***:***@127.0.0.1:\(origin.port)/missing.png")
            #expect(line["ok"] as? Bool == false)
            let text = try await WebImageTool.run(["fetch", url, "--cache-dir", cache.path])
            #expect(text.status == 1)
            for run in [json, text] {
                #expect(!run.out.contains("secret") && !run.err.contains("secret"), "\(run.out)\(run.err)")
            }
            #expect(origin.requestCount("/missing.png") == 2)
        }
    }
}
