import Foundation
import Testing

/// `webimage serve`'s command line: the flags the README documents are in `--help`, and
/// out-of-range values are usage errors (status 2) before anything starts.
@Suite("webimage serve: flags", .timeLimit(.minutes(1)))
struct ServeCommandTests {
    @Test("--help lists the limits of issue 23")
    func helpListsTheFlags() async throws {
        let run = try await WebImageTool.run(["serve", "--help"])
        #expect(run.status == 0)
        for flag in ["--allow-host", "--allow-source", "--cache-max-size", "--cache-max-age", "--quality", "--max-memory",
                     "--io-threads", "--max-animation-frames", "--max-output-pixels"] {
            #expect(run.out.contains(flag), "\(flag) is not in serve --help")
        }
    }

    @Test("out-of-range limits are refused with status 2", arguments: [
        ["--cache-max-size", "100"], ["--cache-max-age", "5"], ["--quality", "0"], ["--quality", "101"],
        ["--max-memory", "1000"], ["--io-threads", "0"],
    ])
    func refusesBadValues(_ flags: [String]) async throws {
        let run = try await WebImageTool.run(["serve", "--unsigned", "--port", "0"] + flags)
        #expect(run.status == 2, "\(flags): \(run.err)")
        #expect(run.err.contains(flags[0]))
    }
}
