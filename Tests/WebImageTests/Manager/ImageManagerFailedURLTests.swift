import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("ImageManager: the failed-URL block list", .timeLimit(.minutes(1)))
struct ImageManagerFailedURLTests {
    @Test("a 404 URL is blocked: the second load makes no request and fails with blackListed (1003)")
    func blocksAfter404() async throws {
        try await ManagerFixture.with { f in
            let url = f.origin.url("/missing.png")
            let first = await f.loadAll(url)
            #expect(first.map(\.error?.code) == [.invalidDownloadStatusCode])
            #expect(f.manager.isFailedURL(url))

            let second = await f.loadAll(url)
            #expect(second.map(\.error?.code) == [.blackListed])
            #expect(second.first?.error?.code.rawValue == 1003)
            #expect(f.origin.requestCount("/missing.png") == 1)
        }
    }

    @Test("retryFailed requests a blocked URL again, and its success takes it off the list")
    func retryFailed() async throws {
        try await ManagerFixture.with { f in
            let url = f.origin.url("/flaky.png")
            _ = await f.loadAll(url)
            #expect(f.manager.isFailedURL(url))

            let retried = await f.loadAll(url, options: [.retryFailed])
            #expect(retried.map(\.error?.code) == [.invalidDownloadStatusCode])
            #expect(f.origin.requestCount("/flaky.png") == 2)

            f.serve("/flaky.png", ManagerTestKit.png())
            let fixed = await f.loadAll(url, options: [.retryFailed])
            #expect(fixed.first?.image != nil)
            #expect(!f.manager.isFailedURL(url))
            #expect(await f.loadAll(url).first?.error == nil)
        }
    }

    @Test("a timed-out URL is not blocked")
    func timeoutNotBlocked() async throws {
        try await ManagerFixture.with(timeout: 0.3) { f in
            let url = f.serve("/late.png", ManagerTestKit.png(), delay: .seconds(3))
            let results = await f.loadAll(url)
            #expect(results.map(\.error?.code) == [.timedOut])
            #expect(!f.manager.isFailedURL(url))
            _ = await f.loadAll(url)
            #expect(f.origin.requestCount("/late.png") == 2)
        }
    }

    @Test("a refused request is not blocked: a request modifier's veto, a downloader shut down (invalidDownloadOperation says nothing about the URL)")
    func refusalNotBlocked() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/refused.png", ManagerTestKit.png())
            var vetoing = WebImageContext()
            vetoing.downloadRequestModifier = { _ in nil }
            let vetoed = await f.loadAll(url, context: vetoing)
            #expect(vetoed.map(\.error?.code) == [.invalidDownloadOperation])
            #expect(!f.manager.isFailedURL(url))
            #expect(f.origin.requestCount("/refused.png") == 0)

            await f.downloader.shutdown()
            let late = await f.loadAll(url)
            #expect(late.map(\.error?.code) == [.invalidDownloadOperation])
            #expect(!f.manager.isFailedURL(url))
        }
    }

    @Test("removeFailedURL and removeAllFailedURLs unblock")
    func removal() async throws {
        try await ManagerFixture.with { f in
            let a = f.origin.url("/a404.png")
            let b = f.origin.url("/b404.png")
            _ = await f.loadAll(a)
            _ = await f.loadAll(b)
            #expect(f.manager.isFailedURL(a) && f.manager.isFailedURL(b))
            f.manager.removeFailedURL(a)
            #expect(!f.manager.isFailedURL(a) && f.manager.isFailedURL(b))
            f.manager.removeAllFailedURLs()
            #expect(!f.manager.isFailedURL(b))
            _ = await f.loadAll(b)
            #expect(f.origin.requestCount("/b404.png") == 2)
        }
    }

    @Test("the delegate's shouldBlockFailedURL overrides the loader's policy")
    func delegatePolicy() async throws {
        try await ManagerFixture.with { f in
            let delegate = BlockingPolicy(block: false)
            f.manager.delegate = delegate
            let url = f.origin.url("/nope.png")
            _ = await f.loadAll(url)
            #expect(!f.manager.isFailedURL(url))
            _ = await f.loadAll(url)
            #expect(f.origin.requestCount("/nope.png") == 2)
            withExtendedLifetime(delegate) {}
        }
    }
}

/// A delegate with a fixed block-list answer.
final class BlockingPolicy: ImageManagerDelegate {
    let block: Bool
    init(block: Bool) { self.block = block }
    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool? { block }
}
