import Foundation
import Testing

/// The test venv's Python (`make test-venv`: pyarrow, duckdb, pandas): it writes the files the
/// reader is tested on, with the expected values beside them, and reads what the writer wrote.
enum PythonVenv {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python = packageRoot.appendingPathComponent(".build-test/venv/bin/python")

    /// Runs `script` with `arguments` in `directory`; returns its stdout, or fails the test
    /// with its stderr.
    static func run(_ script: String, _ arguments: [String] = [], in directory: URL) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "no \(python.path): run `make test-venv`")
        let file = directory.appendingPathComponent("script-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = python
        process.arguments = [file.path] + arguments
        process.currentDirectoryURL = directory
        // stderr to a file, so only one pipe needs draining while the child runs.
        let errFile = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        let err = try FileHandle(forWritingTo: errFile)
        defer { try? err.close() }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        try #require(process.terminationStatus == 0, "python failed (\(process.terminationStatus)): \(errors)")
        return String(decoding: output, as: UTF8.self)
    }

    /// Runs `script` and parses its stdout as JSON.
    static func json(_ script: String, _ arguments: [String] = [], in directory: URL) throws -> Any {
        let text = try run(script, arguments, in: directory)
        return try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// A fresh temporary folder, removed when the value is dropped.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("parquet-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
