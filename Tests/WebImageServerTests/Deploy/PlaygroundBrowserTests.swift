import AsyncHTTPClient
import Foundation
import Testing
import WebImageServer

/// The playground of `/gallery` (a server without a key) in headless Chromium: the first
/// update shows the image, the URL and the `/info` JSON; a changed option updates the URL
/// and the image; an invalid option shows the server's JSON error. The screenshot is kept
/// in `.build/test-output/playground.png`.
@Suite(
    "/gallery playground in headless Chromium", .serialized,
    .enabled(if: BrowserSession.unavailableReason == nil, Comment(rawValue: BrowserSession.unavailableReason ?? "")),
    .timeLimit(.minutes(5)))
struct PlaygroundBrowserTests {
    /// Waits until the page has finished `count` updates, then returns what it shows (the
    /// page's error text as `shownError`: a result key `error` reads as a WebDriver error).
    static func state(after count: Int, change: String = "") -> String {
        """
        const done = arguments[arguments.length - 1];
        const $ = id => document.getElementById(id);
        \(change)
        const deadline = Date.now() + 30000;
        (function poll() {
          if ((+document.body.dataset.updates || 0) >= \(count) || Date.now() > deadline) {
            done({ updates: +document.body.dataset.updates || 0, url: $("url").textContent,
                   imageHidden: $("result").hidden, width: $("result").naturalWidth, height: $("result").naturalHeight,
                   bytes: $("bytes").textContent, shownError: $("error").hidden ? "" : $("error").textContent,
                   info: $("info").textContent });
          } else { setTimeout(poll, 50); }
        })();
        """
    }

    static func set(_ id: String, _ value: String) -> String {
        "$(\"\(id)\").value = \"\(value)\"; $(\"\(id)\").dispatchEvent(new Event(\"input\"));"
    }

    @Test("an option change updates the image and the URL; an invalid option shows the JSON error")
    func playground() async throws {
        let client = HTTPClient.shared
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-playground-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await ServeInstance.with(["--no-cache"], log: work.appendingPathComponent("serve.log"), client: client) { server in
            let browser = try await BrowserSession.start(work: work, scale: 1, client: client)
            do {
                try await browser.open(server.baseURL + "/gallery")
                let first = try #require(try await browser.executeAsync(Self.state(after: 1)) as? [String: Any])
                #expect(first["updates"] as? Int == 1)
                #expect((first["url"] as? String)?.contains("/unsafe/rs:fit:480:320/") == true)
                #expect(first["imageHidden"] as? Bool == false)
                let width = first["width"] as? Int ?? 0, height = first["height"] as? Int ?? 0
                #expect(width > 0 && width <= 480 && height > 0 && height <= 320 && (width == 480 || height == 320))
                let info = try #require((first["info"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
                #expect(info["blurhash"] is String && info["thumb_hash"] is String && info["width"] is Int)

                let narrower = try #require(try await browser.executeAsync(Self.state(after: 2, change: Self.set("width", "200"))) as? [String: Any])
                #expect((narrower["url"] as? String)?.contains("/unsafe/rs:fit:200:320/") == true)
                #expect((narrower["width"] as? Int) == 200)
                #expect((narrower["bytes"] as? String)?.contains("bytes") == true)

                let invalid = try #require(try await browser.executeAsync(Self.state(after: 3, change: Self.set("extra", "nonsense:1"))) as? [String: Any])
                #expect(invalid["imageHidden"] as? Bool == true)
                let error = invalid["shownError"] as? String ?? ""
                #expect(error.hasPrefix("HTTP 400") && error.contains("invalidOptions"), "\(error)")

                let screenshot = try await browser.screenshot()
                let output = ServeInstance.packageRoot.appendingPathComponent(".build/test-output")
                try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
                try screenshot.write(to: output.appendingPathComponent("playground.png"))
                #expect(screenshot.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            } catch {
                await browser.close()
                throw error
            }
            await browser.close()
        }
    }
}
