import Foundation
import Synchronization
import Testing
import WebImageTestOrigin

/// The dataset job's manners toward the hosts it downloads from, observed by scripted
/// origins on loopback: requests per host at once, the pause after 429 with
/// `Retry-After`, X-Robots-Tag directives (img2dataset's rules, from its README's
/// "Opt-out directives"), the user-agent token, and a job that ends on its timeout.
@Suite("webimage fetch: politeness per host", .serialized, .timeLimit(.minutes(3)))
struct DatasetPolitenessTests {
    static func list(_ urls: [String], in work: TemporaryDirectory, name: String = "urls.txt") throws -> String {
        try DatasetFixture.write(urls.joined(separator: "\n") + "\n", name, in: work)
    }

    static func lines(_ out: URL) throws -> [[String: Any]] {
        try String(contentsOf: out.appendingPathComponent("00000.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try DatasetFixture.object(Data($0.utf8)) }
    }

    @Test("--per-host-concurrency 2: 16 slow images on each of two hosts, never more than 2 at once per host")
    func perHostConcurrency() async throws {
        // Given two hosts (two loopback addresses) whose images each take 400 ms
        try await TestOrigin.with(host: "127.0.0.1") { a in
            try await TestOrigin.with(host: "127.0.0.2") { b in
                let body = try DatasetFixture.png(20, 20)
                let log = ArrivalLog()
                var urls: [String] = []
                for (name, origin) in [("a", a), ("b", b)] {
                    for i in 0..<16 {
                        origin.route("/\(i).png") { _ in
                            log.record(name)
                            return .init(body: body, contentType: "image/png", delay: .milliseconds(400))
                        }
                        urls.append(origin.url("/\(i).png").absoluteString)
                    }
                }
                // When a job with 32 transfers at once but 2 per host fetches them, hosts interleaved
                let work = try TemporaryDirectory()
                let interleaved = (0..<16).flatMap { [urls[$0], urls[16 + $0]] }
                let out = work.url.appendingPathComponent("out")
                let run = try await WebImageTool.run(["fetch", "--file", try Self.list(interleaved, in: work), "--out", out.path,
                                                      "--concurrency", "32", "--per-host-concurrency", "2"])
                #expect(run.status == 0, "\(run.err)")
                // Then every request arrived, and within any 300 ms (less than one answer's delay,
                // so requests in it overlapped) each host saw at most 2, and at times exactly 2
                for host in ["a", "b"] {
                    #expect(log.arrivals(host).count == 16)
                    #expect(log.peak(host, within: .milliseconds(300)) == 2, "\(host): \(log.peak(host, within: .milliseconds(300)))")
                }
                #expect(try Self.lines(out).allSatisfy { $0["status"] as? String == "success" })
            }
        }
    }

    /// The downloader alone would coalesce two transfers at once; with one request per host
    /// the second row used to wait for the gate and download again. Through the originals
    /// stage it joins the first row's fetch instead.
    @Test("a URL listed twice while its first download is under way is downloaded once, even one request per host; both samples succeed")
    func oneDownloadPerURLInFlight() async throws {
        try await TestOrigin.with { origin in
            origin.route("/twice.png", .init(body: try DatasetFixture.png(20, 20), contentType: "image/png", delay: .milliseconds(600)))
            let url = origin.url("/twice.png").absoluteString
            let work = try TemporaryDirectory()
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", try Self.list([url, url], in: work), "--out", out.path,
                                                  "--concurrency", "4", "--per-host-concurrency", "1"])
            #expect(run.status == 0, "\(run.err)")
            #expect(origin.requestCount("/twice.png") == 1)
            let lines = try Self.lines(out)
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0["status"] as? String == "success" })
        }
    }

    @Test("429 with Retry-After pauses the whole host; --retries brings the sample back")
    func retryAfterPausesHost() async throws {
        try await TestOrigin.with() { origin in
            let body = try DatasetFixture.png(20, 20)
            let log = ArrivalLog()
            let served = Mutex(0)
            origin.route("/busy.png") { _ in
                log.record("busy")
                let n = served.withLock { n -> Int in n += 1; return n }
                return n == 1 ? .init(status: 429, body: [], headers: [("Retry-After", "2")])
                    : .init(body: body, contentType: "image/png")
            }
            var urls = [origin.url("/busy.png").absoluteString]
            for i in 0..<12 {
                origin.route("/\(i).png") { _ in
                    log.record("other")
                    return .init(body: body, contentType: "image/png", delay: .milliseconds(50))
                }
                urls.append(origin.url("/\(i).png").absoluteString)
            }
            let work = try TemporaryDirectory()
            let out = work.url.appendingPathComponent("out")
            let run = try await WebImageTool.run(["fetch", "--file", try Self.list(urls, in: work), "--out", out.path,
                                                  "--per-host-concurrency", "1", "--retries", "1"])
            #expect(run.status == 0, "\(run.err)")
            let refused = try #require(log.arrivals("busy").first)
            // Nothing went to the host for the 2 s it asked for (a little slack for clocks).
            for arrival in log.arrivals("other") + log.arrivals("busy").dropFirst() where arrival > refused {
                #expect(arrival >= refused + .milliseconds(1900), "a request came \(refused.duration(to: arrival)) after the 429")
            }
            #expect(log.arrivals("other").contains { $0 > refused }, "the other images came after the pause")
            #expect(log.arrivals("busy").count == 2)
            #expect(try Self.lines(out).allSatisfy { $0["status"] as? String == "success" })
        }
    }

    @Test("X-Robots-Tag: img2dataset's default directives, robot-specific lines, its quirks, custom lists, off")
    func robotsTag() async throws {
        try await TestOrigin.with() { origin in
            let body = try DatasetFixture.png(20, 20)
            let tags = ["noai", "NoAI", "noindex, nofollow", "otherbot: noai", "mybot: noimageai", "nofollow",
                        "noindex, unavailable_after: 25 Jun 2010 15:00:00 PST", "noimageindex"]
            var urls: [String] = []
            for (i, tag) in tags.enumerated() {
                origin.route("/\(i).png", .init(body: body, contentType: "image/png", headers: [("X-Robots-Tag", tag)]))
                urls.append(origin.url("/\(i).png").absoluteString)
            }
            let work = try TemporaryDirectory()
            let list = try Self.list(urls, in: work)
            let refusal = "Use of image disallowed by X-Robots-Tag directive"
            let cases: [(String, [String], [Bool])] = [
                ("default", [], [true, true, true, false, false, false, false, true]),
                ("token", ["--user-agent-token", " MyBot "], [true, true, true, false, true, false, false, true]),
                ("custom", ["--disallowed-header-directives", "NoFollow"], [false, false, true, false, false, true, false, false]),
                ("off", ["--disallowed-header-directives", ""], [false, false, false, false, false, false, false, false]),
            ]
            for (name, flags, refused) in cases {
                let out = work.url.appendingPathComponent(name)
                let run = try await WebImageTool.run(["fetch", "--file", list, "--input-format", "txt", "--out", out.path] + flags)
                #expect(run.status == 0, "\(name): \(run.err)")
                let messages = try Self.lines(out).map { $0["error_message"] as? String }
                #expect(messages == refused.map { $0 ? refusal : nil }, "\(name)")
            }
            let agents = origin.requestHeaders("/0.png").compactMap { $0["user-agent"] }
            #expect(agents.contains { $0.hasSuffix("(compatible; mybot)") }, "\(agents)")
        }
    }

    @Test("A host that never answers ends the job at --timeout, as `timed out`")
    func noStallAtTheEnd() async throws {
        try await TestOrigin.with() { origin in
            let body = try DatasetFixture.png(20, 20)
            origin.route("/fast.png", .init(body: body, contentType: "image/png"))
            origin.route("/never.png", .init(body: body, contentType: "image/png", delay: .seconds(600)))
            let work = try TemporaryDirectory()
            let out = work.url.appendingPathComponent("out")
            let urls = [origin.url("/fast.png").absoluteString, origin.url("/never.png").absoluteString]
            let run = try await WebImageTool.run(["fetch", "--file", try Self.list(urls, in: work), "--out", out.path,
                                                  "--input-format", "txt", "--timeout", "2"])
            #expect(run.status == 0, "\(run.err)")
            let lines = try Self.lines(out)
            #expect(lines.map { $0["status"] as? String } == ["success", "failed_to_download"])
            #expect(lines[1]["error_message"] as? String == "timed out")
        }
    }
}
