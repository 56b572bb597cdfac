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
        // On Linux the test binary is `<build>/debug/WebImagePackageTests.xctest`; on macOS
        // it sits inside the bundle, three levels further down.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("webimage")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return Corpus.packageRoot.appendingPathComponent(".build/debug/webimage")
    }()

    /// Runs `webimage arguments…` to the end without blocking a thread, so servers in
    /// the test process keep answering the child. `COLUMNS` is unset unless given, so
    /// the tool's width does not depend on the terminal the tests run in.
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil) async throws -> Run {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build the webimage tool first")
        let directory = try TemporaryDirectory()
        let outURL = directory.url.appendingPathComponent("out")
        let errURL = directory.url.appendingPathComponent("err")
        let inURL = directory.url.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: stdin ?? Data())
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = nil
        process.environment = env.merging(environment) { $1 }
        // Files, not pipes: a chatty child can never block on a full pipe nobody reads.
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let input = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let status = try await exitStatus(of: process)
        try out.close()
        try err.close()
        try input.close()
        return Run(status: status,
                   out: try String(contentsOf: outURL, encoding: .utf8),
                   err: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Runs `webimage arguments…` with stderr and stdout on a pseudo-terminal (util-linux
    /// `script`), as a person at a terminal sees it; `out` holds everything the terminal
    /// received, control sequences included. `nil` when `script` is not installed.
    static func runOnTerminal(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run? {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { return nil }
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = ([executable.path] + arguments).map(quoted).joined(separator: " ")
        let directory = try TemporaryDirectory()
        let typescript = directory.url.appendingPathComponent("typescript")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        // -q quiet, -e the command's exit status, -f flush as written; the typescript file
        // is what the terminal received.
        process.arguments = ["-qef", "-c", command, typescript.path]
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = nil
        env["TERM"] = "xterm"
        process.environment = env.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status = try await exitStatus(of: process)
        let text = String(decoding: (try? Data(contentsOf: typescript)) ?? Data(), as: UTF8.self)
        return Run(status: status, out: text, err: "")
    }

    /// Starts `process` and waits for its exit status without blocking a thread.
    private static func exitStatus(of process: Process) async throws -> Int32 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
