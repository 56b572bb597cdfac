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

    /// A deployment's key in the environment and `--unsigned` on the command line: a usage
    /// error naming both, never a server that accepts `/unsafe/…` with the key ignored.
    @Test("--unsigned with a key in the environment is a usage error naming both", arguments: [
        ["IMGPROXY_KEY": "0123456789abcdef", "IMGPROXY_SALT": "fedcba9876543210"],
        ["WEBIMAGE_KEY": "0123456789abcdef", "WEBIMAGE_SALT": "fedcba9876543210"],
    ])
    func unsignedWithEnvironmentKey(_ environment: [String: String]) async throws {
        let run = try await WebImageTool.run(["serve", "--unsigned", "--port", "0"], environment: environment)
        #expect(run.status == 2, "\(run.err)")
        let variable = try #require(environment.keys.first { $0.hasSuffix("_KEY") })
        #expect(run.err.contains("--unsigned") && run.err.contains(variable), "\(run.err)")
        #expect(!run.err.contains("listening"))
    }
}
