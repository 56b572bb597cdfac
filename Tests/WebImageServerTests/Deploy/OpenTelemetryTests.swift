import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `webimage serve`'s OpenTelemetry export against a receiver on loopback that decodes what
/// arrives with the official `opentelemetry-proto` messages (`Tests/Fixtures/otlp/otlp_receiver.py`,
/// PyPI's package in `make test-venv`), started from imgproxy 4's variables and the spec's `OTEL_*`.
///
/// The export is compiled in with the package's OpenTelemetry trait, which `make test` enables
/// (and says so with `WEBIMAGE_REQUIRE_OPENTELEMETRY=1`, so a build without it fails here
/// instead of passing); a plain `swift build` leaves it out and these tests only check that
/// asking for it is refused. `WEBIMAGE_SERVE_EXECUTABLE` runs them against another build of
/// the tool (the release binary of `make deb`).
@Suite("OpenTelemetry export of webimage serve", .serialized)
struct OpenTelemetryTests {
    static let python = ServeInstance.packageRoot.appendingPathComponent(".build-test/venv/bin/python")
    static let receiver = ServeInstance.packageRoot.appendingPathComponent("Tests/Fixtures/otlp/otlp_receiver.py")
    static let executable = ProcessInfo.processInfo.environment["WEBIMAGE_SERVE_EXECUTABLE"]
        .map { URL(fileURLWithPath: $0) } ?? ServeInstance.executable
    static let enabled = FileManager.default.isExecutableFile(atPath: executable.path)
    static let required = ProcessInfo.processInfo.environment["WEBIMAGE_REQUIRE_OPENTELEMETRY"] == "1"

    /// One span, log record or metric as the receiver wrote it.
    struct Line: Decodable {
        let signal: String
        let service: String?
        let name: String?
        let body: String?
        let trace_id: String?
        let span_id: String?
        let parent_span_id: String?
        let attributes: [String: Attribute]?
    }

    /// A span attribute's value: the receiver writes them as JSON.
    enum Attribute: Decodable, Equatable {
        case bool(Bool), int(Int), text(String), other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let v = try? c.decode(Bool.self) { self = .bool(v) }
            else if let v = try? c.decode(Int.self) { self = .int(v) }
            else if let v = try? c.decode(String.self) { self = .text(v) }
            else { self = .other }
        }
    }

    /// A running receiver: its port and what it has written so far.
    struct Receiver {
        let process: ChildProcess
        let port: Int
        let out: URL

        static func start(work: URL, silent: Bool = false) async throws -> Receiver {
            let portFile = work.appendingPathComponent("receiver.port")
            let out = work.appendingPathComponent("received.jsonl")
            let process = try ChildProcess(
                "otlp_receiver.py", executable: python,
                arguments: [receiver.path, portFile.path, out.path] + (silent ? ["--silent"] : []),
                log: work.appendingPathComponent("receiver.log"))
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                    return Receiver(process: process, port: port, out: out)
                }
                guard process.isRunning else { throw DeployTestError("the receiver exited:\n\(process.logTail)") }
                try await Task.sleep(for: .milliseconds(50))
            }
            await process.stop()
            throw DeployTestError("the receiver did not start:\n\(process.logTail)")
        }

        var lines: [Line] {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        }

        /// Polls until `done` holds for what has arrived (or 30 s pass); what arrived.
        func wait(until done: ([Line]) -> Bool) async throws -> [Line] {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let lines = self.lines
                if done(lines) { return lines }
                try await Task.sleep(for: .milliseconds(100))
            }
            return lines
        }
    }

    static func workDirectory() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-otel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }

    /// A 300×200 PNG: decoded, resized and encoded by the general path (the planar JPEG one
    /// has a single `transcode` span).
    static func photoPNG() throws -> [UInt8] {
        let (width, height) = (300, 200)
        let pixels = PixelBuffer(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8(x * 255 / width)
                    out[i + 1] = UInt8(y * 255 / height)
                    out[i + 2] = 128
                    out[i + 3] = 255
                }
            }
        }
        return Array(try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: ImageEncodeOptions()))
    }

    static func hex(_ count: Int) -> String {
        (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Starts `serve` with export asked by `environment`; `nil` when this build has no export
    /// compiled in (it refused at start, naming the trait) and the suite does not require it.
    static func startServe(_ environment: [String: String], extra: [String], work: URL) async throws -> ServeInstance? {
        let log = work.appendingPathComponent("serve.log")
        do {
            return try await ServeInstance.start(extra, environment: environment, log: log, client: .shared, executable: executable)
        } catch {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard text.contains("built without OpenTelemetry") else { throw error }
            #expect(!required, "make test builds with --traits OpenTelemetry, but this webimage has no export: \(text)")
            return nil
        }
    }

    /// Runs `body` with a `serve` started as ``startServe(_:extra:work:)`` does, and awaits its
    /// stop whether `body` returns or throws; skips `body` when there is no export compiled in.
    static func withServe(
        _ environment: [String: String], extra: [String], work: URL, _ body: (ServeInstance) async throws -> Void
    ) async throws {
        guard let serve = try await startServe(environment, extra: extra, work: work) else { return }
        try await withCleanup { try await body(serve) } cleanup: { await serve.process.stop() }
    }

    @Test("one proxied request is one trace: the incoming traceparent continued, the stages as child spans, sent on to the source; logs with the trace id; request metrics",
          .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(3)))
    func oneTrace() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let receiver = try await Receiver.start(work: work)
        // Killed here, not in a task the test may never run, and with SIGKILL: the receiver
        // inherits the test process's blocked SIGTERM, and would outlive the suite.
        defer { receiver.process.kill(SIGKILL) }
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/photo.png", .init(body: try Self.photoPNG(), contentType: "image/png"))

            try await Self.withServe([
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
                "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS": "1",
                "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "T",
                "OTEL_METRIC_EXPORT_INTERVAL": "200",
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http",  // imgproxy's alias of http/protobuf
                "OTEL_SERVICE_NAME": "webimage-under-test",
                "OTEL_BSP_SCHEDULE_DELAY": "100",
                "OTEL_BLRP_SCHEDULE_DELAY": "100",
                "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            ], extra: ["--cache-dir", work.appendingPathComponent("cache").path, "--log-level", "debug"], work: work) { serve in
                try await Self.checkOneTrace(serve, origin: origin, receiver: receiver)
            }
        }
    }

    /// The body of ``oneTrace()`` once `serve` runs: two requests, then the spans, logs and
    /// metrics the receiver got.
    private static func checkOneTrace(_ serve: ServeInstance, origin: TestOrigin, receiver: Receiver) async throws {
        let url = serve.baseURL + "/unsafe/rs:fit:120:120/f:jpg/plain/" + origin.url("/photo.png").absoluteString
        // Two requests, each with a traceparent of its own: a cold one, then a memory hit.
        var traces: [(trace: String, parent: String)] = []
        for _ in 0..<2 {
            let (trace, parent) = (Self.hex(16), Self.hex(8))
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "traceparent", value: "00-\(trace)-\(parent)-01")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            #expect(response.status == .ok)
            traces.append((trace, parent))
        }
        let expected: Set<String> = ["cache.result.memory", "cache.result.disk", "source.fetch", "cache.source.memory",
                                     "cache.source.disk", "decode", "transform", "encode"]
        let lines = try await receiver.wait { lines in
            let first = Set(lines.filter { $0.signal == "span" && $0.trace_id == traces[0].trace }.compactMap(\.name))
            let second = lines.filter { $0.signal == "span" && $0.trace_id == traces[1].trace }
            let logged = lines.contains { $0.signal == "log" && $0.trace_id == traces[0].trace }
            let metrics = Set(lines.filter { $0.signal == "metric" }.compactMap(\.name))
            // Both spans of the memory hit, not just any two: spans come in batches.
            return first.isSuperset(of: expected) && second.contains { $0.name == "cache.result.memory" }
                && second.contains { $0.parent_span_id == traces[1].parent } && logged
                && metrics.isSuperset(of: ["http.server.request.duration", "webimage_serve_requests_total"])
        }
        #expect(!lines.contains { $0.signal == "error" }, "the receiver could not parse an export")

        // The cold request: the server span continues the incoming context; every stage is its child.
        let spans = lines.filter { $0.signal == "span" && $0.trace_id == traces[0].trace }
        let servers = spans.filter { $0.parent_span_id == traces[0].parent }
        try #require(servers.count == 1, "one span continues the incoming traceparent: \(spans.map { ($0.name ?? "", $0.parent_span_id ?? "") })")
        let server = servers[0]
        #expect(server.service == "webimage-under-test")
        #expect(server.attributes?["http.response.status_code"] == .int(200))
        func span(_ name: String) -> Line? { spans.first { $0.name == name } }
        for name in ["cache.result.memory", "cache.result.disk", "source.fetch", "decode", "transform", "encode"] {
            #expect(span(name)?.parent_span_id == server.span_id, "\(name) is a child of the request's span")
        }
        for name in ["cache.source.memory", "cache.source.disk"] {
            #expect(span(name)?.parent_span_id == span("source.fetch")?.span_id, "\(name) is a child of source.fetch")
        }
        for name in ["cache.result.memory", "cache.result.disk", "cache.source.memory", "cache.source.disk"] {
            #expect(span(name)?.attributes?["webimage.cache.hit"] == .bool(false), "\(name): a cold request misses")
        }
        // The source got the trace, with source.fetch as the parent.
        let sent = origin.requestHeaders("/photo.png").compactMap { $0["traceparent"] }
        #expect(sent == ["00-\(traces[0].trace)-\(span("source.fetch")?.span_id ?? "?")-01"], "traceparent sent to the source: \(sent)")
        // The per-request log line carries the trace (and the span that logged it).
        #expect(lines.contains { $0.signal == "log" && $0.trace_id == traces[0].trace && $0.body == "image request" })
        // Request metrics (Hummingbird's, by route and status) and the server's own series.
        let metrics = Set(lines.filter { $0.signal == "metric" }.compactMap(\.name))
        #expect(metrics.isSuperset(of: ["http.server.request.duration", "webimage_serve_requests_total"]), "\(metrics.sorted())")

        // The second request: a memory hit of the result cache, nothing rendered or fetched.
        let second = lines.filter { $0.signal == "span" && $0.trace_id == traces[1].trace }
        let hit = second.first { $0.name == "cache.result.memory" }
        #expect(hit?.attributes?["webimage.cache.hit"] == .bool(true))
        #expect(hit?.parent_span_id == second.first { $0.parent_span_id == traces[1].parent }?.span_id)
        #expect(!second.contains { ["source.fetch", "decode", "encode"].contains($0.name ?? "") })
    }

    @Test("a collector that never answers: one warning, no request waits for the export",
          .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(3)))
    func silentCollector() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "no \(Self.python.path): run `make test-venv`")
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let receiver = try await Receiver.start(work: work, silent: true)
        // Killed here, not in a task the test may never run, and with SIGKILL: the receiver
        // inherits the test process's blocked SIGTERM, and would outlive the suite.
        defer { receiver.process.kill(SIGKILL) }
        try await TestOrigin.with(host: "127.0.0.2") { origin in
            origin.route("/photo.png", .init(body: try Self.photoPNG(), contentType: "image/png"))
            try await Self.withServe([
                "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)",
                "OTEL_EXPORTER_OTLP_TIMEOUT": "3000",
                "OTEL_BSP_SCHEDULE_DELAY": "50",
                "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            ], extra: ["--no-cache"], work: work) { serve in

                // Requests spread over 3 s, so that batches are exported (and hang) meanwhile. An export
                // in a request's way would hold it for the export's whole timeout (3 s); a request
                // takes milliseconds, so the bound tells the two apart even on a loaded machine.
                var slowest = Duration.zero
                for i in 0..<30 {
                    let start = ContinuousClock.now
                    let url = serve.baseURL + "/unsafe/rs:fit:\(60 + i):60/f:jpg/plain/" + origin.url("/photo.png").absoluteString
                    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    #expect(response.status == .ok)
                    slowest = max(slowest, ContinuousClock.now - start)
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(slowest < .seconds(3), "the slowest request took \(slowest)")
                // By now the first batches have timed out, one after the other.
                try await Task.sleep(for: .seconds(4))
                await serve.process.stop()
                let log = (try? String(contentsOf: serve.process.log, encoding: .utf8)) ?? ""
                let failures = log.split(separator: "\n").filter { $0.contains("webimage.otel") && $0.contains("Failed to export") }
                #expect(failures.count == 1, "one warning for the failing exports, got \(failures.count):\n\(log.suffix(2000))")
            }
        }
    }

    @Test("grpc is refused at start, naming http/protobuf; off, the OTEL_* variables are not read",
          .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(1)))
    func refusals() async throws {
        let work = try Self.workDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let run = try ChildProcess(
            "webimage serve (grpc)", executable: Self.executable, arguments: ["serve", "--unsigned", "--port", "0"],
            environment: ["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"],
            log: work.appendingPathComponent("grpc.log"))
        #expect(await run.waitForExit(timeout: .seconds(20)))
        #expect(run.process.terminationStatus != 0)
        let text = (try? String(contentsOf: run.log, encoding: .utf8)) ?? ""
        #expect(text.contains("OTEL_EXPORTER_OTLP_PROTOCOL") && text.contains("http/protobuf"), "\(text)")
        // Off (the default), the same grpc setting is not even read: the server starts.
        try await ServeInstance.with(
            [], environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], log: work.appendingPathComponent("off.log"),
            client: .shared, executable: Self.executable) { _ in }
    }
}
