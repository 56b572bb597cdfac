import Foundation
import Testing
import WebImageTestOrigin

/// How a bulk job reports failed URLs: counted by error name (progress line and summary),
/// each on a line of its own only with `--log-failures`, never written onto the progress line.
@Suite("webimage fetch bulk: failures counted, --log-failures", .serialized, .timeLimit(.minutes(2)))
struct BulkFailureReportTests {
    /// 3 good URLs and 6 that answer 404.
    static func list(_ origin: TestOrigin, in work: TemporaryDirectory) throws -> (path: String, dead: [String]) {
        let good = try BulkFixture.serveImages(origin, count: 3)
        let dead = (0..<6).map { origin.url("/gone/\($0).jpg").absoluteString }
        return (try BulkFixture.list(good + dead, in: work), dead)
    }

    @Test("without --log-failures no per-URL line; the summary counts failures by error name")
    func countedOnly() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let (list, dead) = try Self.list(origin, in: work)
            let run = try await WebImageTool.run(["fetch", "--file", list, "--memory-only"])
            #expect(run.status == 1)
            for url in dead { #expect(!run.err.contains(url), "\(run.err)") }
            #expect(run.out.contains("fetched 3 of 9 URLs") && run.out.contains("failed 6: invalidDownloadStatusCode 6"), "\(run.out)")

            let logged = try await WebImageTool.run(["fetch", "--file", list, "--memory-only", "--log-failures"])
            #expect(logged.status == 1)
            for url in dead {
                #expect(logged.err.contains("webimage: \(url): invalidDownloadStatusCode (2001)"), "\(logged.err)")
            }
        }
    }

    @Test("on a terminal a logged failure clears the progress line first; the progress line counts by name")
    func terminal() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let (list, dead) = try Self.list(origin, in: work)
            // One at a time and a little slow, so the progress line is drawn between failures.
            for i in 0..<dead.count {
                origin.route("/gone/\(i).jpg", .init(status: 404, body: Array("no".utf8), contentType: "text/plain",
                                                     delay: .milliseconds(150)))
            }
            guard let run = try await WebImageTool.runOnTerminal(
                ["fetch", "--file", list, "--memory-only", "--concurrency", "1", "--log-failures"]) else { return }
            #expect(run.status == 1)
            let text = run.out
            #expect(text.contains("failed (invalidDownloadStatusCode"), "the progress line counts by name: \(text)")
            for url in dead {
                let line = "webimage: \(url):"
                let range = try #require(text.range(of: line), "\(url) not logged: \(text)")
                // What precedes the failure line: a new line, or the clear-line sequence.
                let before = text[..<range.lowerBound]
                #expect(before.isEmpty || before.hasSuffix("\n") || before.hasSuffix("\u{1B}[2K"),
                        "written onto the progress line: …\(before.suffix(60).debugDescription)")
            }
        }
    }
}
