import Foundation
import Synchronization
import Testing
import WebImageTestOrigin
@testable import WebImageServer

@Suite("Graceful shutdown", .timeLimit(.minutes(1)))
struct ShutdownTests {
    @Test func inFlightRequestsFinishInProcess() async throws {
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/slow.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delay: .milliseconds(700)))
            let proxy = try await ProxyHarness.start(.unsigned)
            let request = Task { try await proxy.get(ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fit:60:60")) }
            for _ in 0..<200 where origin.requestCount("/slow.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
            await proxy.beginShutdown()
            let answer = try await request.value
            #expect(answer.status == 200)
            try await proxy.stopped()
            // Stopped: new requests are not answered any more.
            await #expect(throws: (any Error).self) { _ = try await proxy.get("/health", timeout: .seconds(2)) }
            // The result written during the request is on disk (the cache was flushed).
            let results = proxy.directory.appendingPathComponent("results")
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: results.path)).isEmpty)
            await proxy.shutdown()
        }
    }

    /// The `webimage` binary of this build: beside the test bundle (any scratch path or
    /// configuration), else in `.build/debug`.
    static let binary: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("webimage"),
            Fixtures.packageRoot.appendingPathComponent(".build/debug/webimage"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The built `webimage serve` binary, stopped with SIGTERM during a request.
    @Test(.enabled(if: binary != nil, "the webimage product is not built (swift build --build-tests builds it)"))
    func sigtermLetsTheRequestFinish() async throws {
        let binary = try #require(Self.binary)
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/slow.jpg", .init(body: try Fixtures.landscapeJPEG(), contentType: "image/jpeg", delay: .milliseconds(700)))
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-serve-sigterm-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: cache) }

            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "serve", "--unsigned", "--port", "0", "--allow-network", "127.0.0.2/32", "--cache-dir", cache.path,
                "--log-level", "error",
            ]
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            let port = try await Self.port(from: stderr.fileHandleForReading)

            try await ProxyClient.with(port: port) { client in
                let request = Task { try await client.get(ProxyHarness.unsafePath(origin.url("/slow.jpg"), "rs:fit:60:60")) }
                for _ in 0..<300 where origin.requestCount("/slow.jpg") == 0 { try await Task.sleep(for: .milliseconds(10)) }
                #expect(origin.requestCount("/slow.jpg") == 1)
                kill(process.processIdentifier, SIGTERM)
                #expect(try await request.value.status == 200)
                for _ in 0..<500 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
                #expect(!process.isRunning)
                #expect(process.terminationStatus == 0)
            }
        }
    }

    /// Reads stderr (on the pipe's own thread) until the "listening on http://127.0.0.1:PORT" line.
    private static func port(from handle: FileHandle) async throws -> Int {
        let text = Mutex("")
        handle.readabilityHandler = { handle in
            let chunk = handle.availableData
            text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
        }
        defer { handle.readabilityHandler = nil }
        for _ in 0..<1000 {
            if let match = text.withLock({ $0 }).firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/),
               let port = Int(match.output.1) {
                return port
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }
}
