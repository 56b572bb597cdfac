import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Resuming a body cut off mid-way with `Range` / `If-Range`.
@Suite("ImageDownloader: resumable downloads", .timeLimit(.minutes(1)))
struct ImageDownloaderResumeTests {
    static let config = LoaderTestKit.config {
        $0.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.01, maxDelay: 0.02)
    }

    /// A route whose first full response breaks after `cut` bytes; later ones (and ranges) are whole.
    static func cutOnce(_ origin: TestOrigin, _ path: String, body: [UInt8], cut: Int, etag: String?,
                        lastModified: String? = nil, changeAfterCut: [UInt8]? = nil) {
        let served = Locked(0)
        origin.route(path) { request in
            let n = served.withLock { n -> Int in
                n += 1
                return n
            }
            var response = TestOrigin.Response(body: n > 1 ? (changeAfterCut ?? body) : body)
            response.etag = n > 1 && changeAfterCut != nil ? "\"changed\"" : etag
            if let lastModified { response.headers.append(("Last-Modified", lastModified)) }
            response.acceptsRanges = true
            if n == 1 { response.delivery = .closeAfter(bytes: cut) }
            return response
        }
    }

    @Test("a transfer that loses its connection resumes with Range and downloads only the missing bytes")
    func resumesWithRange() async throws {
        try await LoaderTestKit.withOrigin(Self.config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 64, height: 64)
            Self.cutOnce(origin, "/big.raw", body: bytes, cut: 5000, etag: "\"v1\"")
            let response = try await downloader.loadImage(with: origin.url("/big.raw"))
            #expect(response.image?.pixels == pixels)
            #expect(response.data == Data(bytes))
            #expect(response.attempts == 2)
            #expect(response.http?.statusCode == 200)
            let headers = origin.requestHeaders("/big.raw")
            #expect(headers.count == 2)
            #expect(headers.last?["range"] == "bytes=5000-")
            #expect(headers.last?["if-range"] == "\"v1\"")
            #expect(origin.bytesSent == bytes.count)
        }
    }

    @Test("Last-Modified serves as If-Range when there is no strong ETag")
    func lastModifiedValidator() async throws {
        try await LoaderTestKit.withOrigin(Self.config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 64, height: 64)
            let date = "Sun, 06 Nov 1994 08:49:37 GMT"
            Self.cutOnce(origin, "/lm.raw", body: bytes, cut: 3000, etag: "W/\"weak\"", lastModified: date)
            let response = try await downloader.loadImage(with: origin.url("/lm.raw"))
            #expect(response.image?.pixels == pixels)
            #expect(origin.requestHeaders("/lm.raw").last?["if-range"] == date)
            #expect(origin.bytesSent == bytes.count)
        }
    }

    @Test("a changed resource answers 200 to If-Range: the transfer starts over")
    func changedStartsOver() async throws {
        try await LoaderTestKit.withOrigin(Self.config) { origin, downloader in
            let (old, _) = LoaderTestKit.rawImage(width: 64, height: 64)
            let (new, newPixels) = LoaderTestKit.rawImage(width: 60, height: 60)
            Self.cutOnce(origin, "/moving.raw", body: old, cut: 4000, etag: "\"v1\"", changeAfterCut: new)
            let response = try await downloader.loadImage(with: origin.url("/moving.raw"))
            #expect(response.image?.pixels == newPixels)
            #expect(response.data == Data(new))
            #expect(origin.bytesSent == 4000 + new.count)
        }
    }

    @Test("without a validator the retry downloads everything again")
    func noValidatorRestarts() async throws {
        try await LoaderTestKit.withOrigin(Self.config) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage(width: 64, height: 64)
            Self.cutOnce(origin, "/plain.raw", body: bytes, cut: 2000, etag: nil)
            let response = try await downloader.loadImage(with: origin.url("/plain.raw"))
            #expect(response.image?.pixels == pixels)
            #expect(origin.requestHeaders("/plain.raw").last?["range"] == nil)
            #expect(origin.bytesSent == 2000 + bytes.count)
        }
    }

    @Test("Content-Range values")
    func contentRange() {
        #expect(ContentRange("bytes 10-19/20") == ContentRange("bytes 10-19/20"))
        #expect(ContentRange("bytes 10-19/20")?.first == 10)
        for bad in [nil, "", "bytes */20", "bytes 10-9/20", "bytes 10-20/20", "items 0-1/2", "bytes 0-1/x"] as [String?] {
            #expect(ContentRange(bad) == nil, "\(bad ?? "nil")")
        }
    }
}
