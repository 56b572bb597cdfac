import AsyncHTTPClient
import Foundation
import NIOCore
import WebImageTestOrigin

/// One `webimage serve` child process on a loopback port: the built tool, found next to the
/// test binary (`swift build --build-tests` builds it there), as a deployment runs it.
struct ServeInstance: Sendable {
    let port: Int
    let process: ChildProcess

    /// The package root (this file is Tests/WebImageServerTests/Deploy/ServeInstance.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The `webimage` executable beside the running test binary (same build configuration),
    /// else `.build/debug/webimage`.
    static let executable: URL = {
        // On Linux the test binary is `<build>/debug/WebImagePackageTests.xctest`; on macOS
        // it sits inside the bundle, three levels further down.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("webimage")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/webimage")
    }()

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts `webimage serve [--unsigned] --host 127.0.0.1 --port <free port> extra…` with
    /// `environment` added to this process's, and waits until `/health` answers 200 (or the
    /// process ends, which fails with its log). Without `unsigned` the keys come from `extra`
    /// or the environment.
    static func start(
        _ extra: [String], environment: [String: String] = [:], unsigned: Bool = true, log: URL, client: HTTPClient,
        executable: URL = ServeInstance.executable
    ) async throws -> ServeInstance {
        let port = try ChildProcess.freePort()
        let process = try ChildProcess(
            "webimage serve :\(port)", executable: executable,
            arguments: ["serve"] + (unsigned ? ["--unsigned"] : []) + ["--host", "127.0.0.1", "--port", "\(port)"] + extra,
            environment: environment, log: log)
        let instance = ServeInstance(port: port, process: process)
        do {
            try await waitUntilHealthy(instance.baseURL + "/health", process: process, client: client)
        } catch {
            await process.stop()
            throw error
        }
        return instance
    }

    /// Starts an instance as ``start(_:environment:unsigned:log:client:executable:)`` does, runs
    /// `body` with it, and awaits its stop whether `body` returns or throws.
    static func with<T>(
        _ extra: [String], environment: [String: String] = [:], unsigned: Bool = true, log: URL, client: HTTPClient,
        executable: URL = ServeInstance.executable, _ body: (ServeInstance) async throws -> T
    ) async throws -> T {
        let instance = try await start(
            extra, environment: environment, unsigned: unsigned, log: log, client: client, executable: executable)
        return try await withCleanup { try await body(instance) } cleanup: { await instance.process.stop() }
    }

    /// Polls `url` until it answers 200, for up to `timeout`.
    static func waitUntilHealthy(
        _ url: String, process: ChildProcess, client: HTTPClient, timeout: Duration = .seconds(60)
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw DeployTestError("\(process.name) exited:\n\(process.logTail)") }
            if let response = try? await client.execute(HTTPClientRequest(url: url), timeout: .seconds(2)),
               response.status == .ok {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DeployTestError("\(process.name) did not answer \(url) within \(timeout):\n\(process.logTail)")
    }
}
