import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Every numeric option of the tool refuses NaN, infinities, huge, zero (where zero means
/// nothing) and negative values with exit status 2 and a message on stderr, never a crash.
@Suite("webimage: numeric options are validated", .serialized, .timeLimit(.minutes(1)))
struct NumericOptionTests {
    static let url = "http://127.0.0.1:9/x.png"
    static let jpeg = Corpus.root.appendingPathComponent("jpeg/jpeg-decoder/tower_progressive.jpg").path

    /// Values no Int option accepts: the parser refuses them before `validate()` runs.
    static let notIntegers = ["inf", "-inf", "nan", "1e12", "1.5", "99999999999999999999"]

    /// Runs every argument list (two at a time: the machine has two cores) and checks each
    /// ends with status 2, a message naming `option` on stderr, nothing on stdout and no crash.
    func expectUsageErrors(_ cases: [[String]], naming option: String) async throws {
        let runs = try await withThrowingTaskGroup(of: (Int, WebImageTool.Run).self) { group in
            var results = [WebImageTool.Run?](repeating: nil, count: cases.count)
            var next = 0
            func start() {
                guard next < cases.count else { return }
                let (index, arguments) = (next, cases[next])
                group.addTask { (index, try await WebImageTool.run(arguments)) }
                next += 1
            }
            start()
            start()
            while let (index, run) = try await group.next() {
                results[index] = run
                start()
            }
            return results.compactMap { $0 }
        }
        try #require(runs.count == cases.count)
        for (arguments, run) in zip(cases, runs) {
            #expect(run.status == 2, "\(arguments): status \(run.status), stderr \(run.err)")
            #expect(run.out.isEmpty, "\(arguments)")
            #expect(run.err.contains(option), "\(arguments): \(run.err)")
            #expect(!run.err.contains("Fatal error") && !run.err.contains("crashed"), "\(arguments): \(run.err)")
        }
    }

    /// `base + [option, value]` and, for values starting with `-`, also `option=value`:
    /// both spellings must reach the range check.
    func cases(_ base: [String], _ option: String, _ values: [String]) -> [[String]] {
        values.flatMap { value in
            value.hasPrefix("-") ? [base + [option, value], base + ["\(option)=\(value)"]] : [base + [option, value]]
        }
    }

    @Test("fetch --timeout: inf, NaN, huge, zero and negative exit 2 (inf used to crash with SIGILL)")
    func fetchTimeout() async throws {
        try await expectUsageErrors(
            cases(["fetch", Self.url], "--timeout", ["inf", "-inf", "nan", "infinity", "1e12", "86401", "1e300", "0", "-0", "-1", "0.0000001"]),
            naming: "--timeout")
        let run = try await WebImageTool.run(["fetch", Self.url, "--timeout", "inf"])
        #expect(run.err.contains("86400"), "the message gives the range: \(run.err)")
    }

    @Test("fetch and prefetch --concurrency: only 1…1024")
    func concurrency() async throws {
        let values = Self.notIntegers + ["0", "-1", "1025", "9223372036854775807", "-9223372036854775808"]
        try await expectUsageErrors(
            cases(["fetch", Self.url], "--concurrency", values) + cases(["prefetch", Self.url], "--concurrency", values),
            naming: "--concurrency")
    }

    @Test("fetch and decode --thumbnail: each side 1…65535")
    func thumbnail() async throws {
        let values = ["infxinf", "nanx5", "5xnan", "1e12x5", "0x0", "5x0", "-1x5", "65536x1", "1x65536",
                      "9223372036854775807x9223372036854775807", "99999999999999999999x5", "5", "x", "5x5x5"]
        try await expectUsageErrors(
            cases(["fetch", Self.url], "--thumbnail", values) + cases(["decode", Self.jpeg], "--thumbnail", values),
            naming: "--thumbnail")
    }

    @Test("decode --max-pixels: only 1…10000000000")
    func maxPixels() async throws {
        try await expectUsageErrors(
            cases(["decode", Self.jpeg], "--max-pixels", Self.notIntegers + ["0", "-1", "10000000001", "9223372036854775807"]),
            naming: "--max-pixels")
    }

    @Test("show --width and --loops, demo --width: bounded")
    func showAndDemo() async throws {
        let values = Self.notIntegers + ["0", "-1", "-9223372036854775808"]
        try await expectUsageErrors(
            cases(["show", Self.jpeg], "--width", values + ["4097", "9223372036854775807"])
                + cases(["demo"], "--width", values),
            naming: "--width")
        try await expectUsageErrors(
            cases(["show", Self.jpeg, "--animate"], "--loops", values + ["10001", "9223372036854775807"]),
            naming: "--loops")
    }

    @Test("cache clean --max-age and --max-size: finite, bounded; negative age still means never")
    func cache() async throws {
        let directory = try TemporaryDirectory()
        let base = ["cache", "clean", "--cache-dir", directory.path]
        try await expectUsageErrors(
            cases(base, "--max-age", ["inf", "-inf", "nan", "infinity", "1e12", "3155760001", "ten"]),
            naming: "--max-age")
        try await expectUsageErrors(
            cases(base, "--max-size", ["inf", "nan", "1e12", "1.5", "-1", "1125899906842625", "9223372036854775807",
                                       "99999999999999999999"]),
            naming: "--max-size")
        for arguments in [base + ["--max-age=-1"], base + ["--max-age", "-1"], base + ["--max-age", "0"], base + ["--max-age", "3155760000"],
                          base + ["--max-size", "0"], base + ["--max-size", "1125899906842624"]] {
            let run = try await WebImageTool.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.err)")
        }
    }

    @Test("the largest accepted values work against a loopback origin and a local file")
    func boundsAccepted() async throws {
        try await TestOrigin.with { origin in
            let png = Array(try Corpus.data("png/image-png/basi3p01_2.png"))
            origin.route("/small.png", .init(body: png, contentType: "image/png"))
            let url = origin.url("/small.png").absoluteString
            let fetch = try await WebImageTool.run(["fetch", url, "--memory-only", "--json", "--timeout", "86400",
                                                    "--concurrency", "1024", "--thumbnail", "65535x65535"])
            #expect(fetch.status == 0, "\(fetch.err)")
            #expect(try fetch.jsonLines().first?["width"] as? Int == 32)
            let quick = try await WebImageTool.run(["fetch", url, "--memory-only", "--timeout", "0.001"])
            #expect(quick.status == 0 || quick.status == 1, "a tiny timeout may time out, but is no usage error: \(quick.err)")

            let decode = try await WebImageTool.run(["decode", Self.jpeg, "--json", "--thumbnail", "1x1",
                                                     "--max-pixels", "10000000000"])
            #expect(decode.status == 0, "\(decode.err)")
            #expect(try decode.jsonLines().first?["width"] as? Int == 1)
            let show = try await WebImageTool.run(["show", Self.jpeg, "--width", "1", "--loops", "10000"])
            #expect(show.status == 0, "\(show.err)")
        }
    }
}
