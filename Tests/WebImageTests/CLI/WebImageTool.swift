import Foundation
import Testing

/// Runs the built `webimage` executable (`swift build --build-tests` builds it beside the
/// tests, in the same directory as the test bundle) and captures what it prints.
struct WebImageTool {
    /// What one run produced.
    struct Run {
        var status: Int32
        var out: String
        var err: String

        /// stdout's lines, without the final empty one.
        var lines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

        /// stdout's lines parsed as JSON objects.
        func jsonLines() throws -> [[String: Any]] {
            try lines.map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            }
        }
    }

    /// The executable: next to the running test binary (same build configuration), else
    /// `.build/debug/webimage` in the package.
    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for directory in sequence(first: beside.deletingLastPathComponent(), next: { $0.pathComponents.count > 2 ? $0.deletingLastPathComponent() : nil }).prefix(4) {
            let candidate = directory.appendingPathComponent("webimage")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return Corpus.packageRoot.appendingPathComponent(".build/debug/webimage")
    }()

    /// Runs `webimage arguments…` to the end. `COLUMNS` is unset unless given, so the
    /// tool's width does not depend on the terminal the tests run in.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build the webimage tool first")
        let directory = try TemporaryDirectory()
        let outURL = directory.url.appendingPathComponent("out")
        let errURL = directory.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = nil
        process.environment = env.merging(environment) { $1 }
        // Files, not pipes: a chatty child can never block on a full pipe nobody reads.
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus,
                   out: try String(contentsOf: outURL, encoding: .utf8),
                   err: try String(contentsOf: errURL, encoding: .utf8))
    }
}
