import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

@Suite("ImageDownloader HTTP features", .timeLimit(.minutes(1)))
struct ImageDownloaderHTTPTests {
    @Test("the result carries status, headers and validators; the defaults headers are sent")
    func responseInfo() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            let seen = Locked<[String: String]>([:])
            origin.route("/v.raw") { request in
                seen.withLock { $0 = request.headers }
                var r = TestOrigin.Response(body: bytes, contentType: "image/x-raw",
                                            headers: [("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")])
                r.etag = "\"v1\""
                return r
            }
            let response = try await downloader.loadImage(with: origin.url("/v.raw"))
            #expect(response.http?.statusCode == 200)
            #expect(response.http?.mimeType == "image/x-raw")
            #expect(response.http?.validators == HTTPValidators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
            #expect(seen.withLock { $0["accept"] } == "image/*,*/*;q=0.8")
            #expect(seen.withLock { $0["user-agent"] }?.hasPrefix("WebImage/") == true)
        }
    }

    @Test("a conditional request with a matching ETag fails with cacheNotModified (304)")
    func notModified() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            var route = TestOrigin.Response(body: bytes)
            route.etag = "\"abc\""
            origin.route("/etag.raw", route)
            let context = WebImageContext.with { $0.validators = HTTPValidators(etag: "\"abc\"") }
            do throws(WebImageError) {
                _ = try await downloader.loadImage(with: origin.url("/etag.raw"), options: .useHTTPCache, context: context)
                Issue.record("expected cacheNotModified")
            } catch {
                #expect(error.code == .cacheNotModified)
                #expect(error.httpStatusCode == 304)
            }
            // Without the option the validators are not sent.
            _ = try await downloader.loadImage(with: origin.url("/etag.raw"), context: context)
            // A stale ETag gets the full body.
            let stale = WebImageContext.with { $0.validators = HTTPValidators(etag: "\"old\"") }
            let fresh = try await downloader.loadImage(with: origin.url("/etag.raw"), options: .ignoreCachedResponse, context: stale)
            #expect(fresh.http?.validators.etag == "\"abc\"")
        }
    }

    @Test("Basic auth: the configured credentials pass, missing ones get 401")
    func basicAuth() async throws {
        try await TestOrigin.with { origin in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            var route = TestOrigin.Response(body: bytes)
            route.basicAuth = ("ada", "s3cret")
            origin.route("/private.raw", route)

            let authorized = ImageDownloader(config: LoaderTestKit.config { $0.username = "ada"; $0.password = "s3cret" })
            let allowedIn = try await authorized.loadImage(with: origin.url("/private.raw"))
            #expect(allowedIn.image?.pixels == pixels)
            let anonymous = ImageDownloader(config: LoaderTestKit.config())
            do throws(WebImageError) {
                _ = try await anonymous.loadImage(with: origin.url("/private.raw"))
                Issue.record("expected 401")
            } catch {
                #expect(error.httpStatusCode == 401)
            }
            await authorized.shutdown()
            await anonymous.shutdown()
        }
    }

    @Test("a request modifier can add headers or veto; a nil response modifier rejects")
    func modifiers() async throws {
        let config = LoaderTestKit.config { config in
            config.requestModifier = { request in
                var request = request
                request.headers["X-Test"] = "yes"
                return request.url.path.hasSuffix("vetoed.raw") ? nil : request
            }
        }
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            let header = Locked<String?>(nil)
            origin.route("/ok.raw") { request in
                header.withLock { $0 = request.headers["x-test"] }
                return .init(body: bytes)
            }
            origin.route("/vetoed.raw", .init(body: bytes))
            _ = try await downloader.loadImage(with: origin.url("/ok.raw"))
            #expect(header.withLock { $0 } == "yes")

            let vetoed = LoadRecorder()
            vetoed.request(downloader, origin.url("/vetoed.raw"))
            #expect(await vetoed.finalError()?.code == .invalidDownloadOperation)
            #expect(origin.requestCount("/vetoed.raw") == 0)

            let rejecting = WebImageContext.with { $0.downloadResponseModifier = { _ in nil } }
            let rejected = LoadRecorder()
            rejected.request(downloader, origin.url("/ok.raw"), context: rejecting)
            #expect(await rejected.finalError()?.code == .invalidDownloadResponse)

            // A response modifier may also turn a failure status into success.
            origin.route("/teapot.raw", .init(status: 418, body: bytes))
            let lenient = WebImageContext.with {
                $0.downloadResponseModifier = { info in
                    var info = info
                    info.statusCode = 200
                    return info
                }
            }
            #expect(try await downloader.loadImage(with: origin.url("/teapot.raw"), context: lenient).image != nil)
        }
    }

    @Test("handleCookies stores Set-Cookie and sends it back; without it no cookie is sent")
    func cookies() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/login.raw", .init(body: bytes, headers: [("Set-Cookie", "session=42; Path=/")]))
            let cookie = Locked<[String?]>([])
            origin.route("/need.raw") { request in
                cookie.withLock { $0.append(request.headers["cookie"]) }
                return .init(body: bytes)
            }
            _ = try await downloader.loadImage(with: origin.url("/login.raw"), options: .handleCookies)
            _ = try await downloader.loadImage(with: origin.url("/need.raw"), options: .handleCookies)
            _ = try await downloader.loadImage(with: origin.url("/need.raw"))
            #expect(cookie.withLock { $0 } == ["session=42", nil])
        }
    }

    @Test("scaleDownLargeImages and decodeFirstFrameOnly reach the decoder")
    func decodeOptionFlags() async throws {
        try await LoaderTestKit.withOrigin { origin, downloader in
            let (bytes, _) = LoaderTestKit.rawImage(width: 400, height: 100)
            origin.route("/big.raw", .init(body: bytes))
            var decode = ImageDecodeOptions()
            decode.scaleDownLimitBytes = 40_000
            let response = try await downloader.loadImage(
                with: origin.url("/big.raw"), options: .scaleDownLargeImages, context: .with { $0.decodeOptions = decode })
            let image = try #require(response.image)
            #expect(image.width * image.height * 4 <= 40_000)
            #expect(image.width == 4 * image.height)
        }
    }

    @Test("withDownloader shuts the downloader down after the body")
    func scopedDownloader() async throws {
        try await TestOrigin.with { origin in
            let (bytes, _) = LoaderTestKit.rawImage()
            origin.route("/w.raw", .init(body: bytes))
            let url = origin.url("/w.raw")
            let kept = try await ImageDownloader.withDownloader(config: LoaderTestKit.config()) { downloader in
                _ = try await downloader.loadImage(with: url)
                return downloader
            }
            let late = LoadRecorder()
            late.request(kept, url)
            #expect(await late.finalError()?.code == .invalidDownloadOperation)
        }
    }
}
