import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import WebImage
import WebImageCodecs
@testable import WebImageServer
import WebImageTestOrigin

/// The scale-out the README describes, run for real: Debian's nginx with the shipped
/// `deploy/nginx.conf` in front of two `webimage serve` processes that share one disk-cache
/// directory, sources on a loopback origin. Everything listens on 127.0.0.1.
@Suite("deploy/nginx.conf in front of two webimage serve instances", .serialized)
struct NginxFailoverTests {
    /// Sources of several sizes and both common formats (dimensions are read by decoding them).
    static let sources = [
        "jpeg/wuffs/harvesters.jpeg", "jpeg/jpeg-decoder/reftest/mjpeg.jpg",
        "jpeg/jpeg-decoder/reftest/progressive3.jpg", "png/image-png/kodim23.png",
    ]
    static let requestCount = 40
    static let concurrency = 4
    /// Requests finished before one instance is killed (the others are in flight then).
    static let killAfter = 12

    /// One answer nginx gave.
    struct Answer: Sendable {
        var index: Int
        var status: Int
        var etag: String?
        var body: Data
    }

    @Test(
        "SIGKILL of one instance mid-run: every request succeeds through nginx's retry, no cache entry is corrupt",
        .enabled(if: NginxFront.binary != nil, "nginx is not installed: `make test-deps` installs Debian's nginx"),
        .timeLimit(.minutes(5)))
    func instanceKilledMidRun() async throws {
        let client = HTTPClient.shared
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-deploy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let cacheDirectory = work.appendingPathComponent("cache")

        let origin = try await TestOrigin.start()
        var sizes: [(width: Int, height: Int)] = []
        for (i, path) in Self.sources.enumerated() {
            let data = try Data(contentsOf: ServeInstance.packageRoot.appendingPathComponent("Tests/Fixtures/corpus/" + path))
            let image = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
            sizes.append((image.width, image.height))
            origin.route("/source-\(i)", .init(body: Array(data), contentType: path.hasSuffix(".png") ? "image/png" : "image/jpeg"))
        }

        let shared = ["--cache-dir", cacheDirectory.path, "--allow-private-addresses"]
        var instances: [ServeInstance] = []
        var front: NginxFront?
        do {
            for n in 0..<2 {
                instances.append(try await ServeInstance.start(shared, log: work.appendingPathComponent("serve-\(n).log"), client: client))
            }
            front = try await NginxFront.start(
                upstreamPorts: instances.map(\.port), prefix: work.appendingPathComponent("nginx"), client: client)
        } catch {
            for instance in instances { await instance.process.stop() }
            await origin.shutdown()
            throw error
        }
        guard let front else { return }
        let victim = instances[0], survivor = instances[1]

        // Given distinct URLs (so nginx's own cache answers none of them), 4 at a time,
        let paths = (0..<Self.requestCount).map { i in
            let box = (width: 120 + 9 * i, height: 100 + 7 * i)
            let source = origin.url("/source-\(i % Self.sources.count)").absoluteString
            let encoded = Data(source.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return (path: "/unsafe/rs:fit:\(box.width):\(box.height)/q:80/\(encoded).jpg", box: box)
        }
        // when the first instance is SIGKILLed after 12 answers, with 3 requests in flight,
        let answers = try await Self.send(paths.map(\.path), to: front.baseURL, client: client) {
            victim.process.kill(SIGKILL)
        }
        let killed = await victim.process.waitForExit()
        let log = front.accessLog()

        // then every request got its image: no failure reached a client,
        #expect(killed, "the first instance did not die")
        #expect(answers.count == Self.requestCount)
        for answer in answers {
            #expect(answer.status == 200, "request \(answer.index): HTTP \(answer.status)")
            guard answer.status == 200 else { continue }
            let image = try ImageCodersManager.shared.decode(answer.body, options: ImageDecodeOptions())
            let expected = Self.fit(sizes[answer.index % Self.sources.count], into: paths[answer.index].box)
            #expect(abs(image.width - expected.width) <= 1 && abs(image.height - expected.height) <= 1,
                    "request \(answer.index): \(image.width)×\(image.height), expected \(expected)")
        }
        // because nginx retried on the survivor what the killed instance dropped or refused,
        let victimAddress = "127.0.0.1:\(victim.port)", survivorAddress = "127.0.0.1:\(survivor.port)"
        let retried = log.filter { $0.upstreams.count > 1 }
        #expect(!retried.isEmpty, "no request was retried: the kill did not happen mid-run?\n\(log.map(\.uri))")
        for entry in retried {
            #expect(entry.upstreams.first == victimAddress && entry.upstreams.last == survivorAddress, "\(entry)")
        }
        #expect(log.filter { $0.uri.hasPrefix("/unsafe/") }.allSatisfy { $0.status == 200 })

        // and nginx's proxy_cache answers a repeated URL itself.
        let again = try await client.execute(HTTPClientRequest(url: front.baseURL + paths[0].path), timeout: .seconds(30))
        #expect(again.status == .ok)
        #expect(again.headers.first(name: "X-Cache-Status") == "HIT")

        // The survivor stops gracefully (SIGTERM flushes its cache); nginx and the origin end.
        await survivor.process.stop(grace: .seconds(30))
        await front.process.stop()
        await origin.shutdown()

        // Every entry in the shared cache directory is whole: results decode and equal the bytes
        // nginx delivered under the same ETag; sources decode.
        let answered = log.filter { $0.uri.hasPrefix("/unsafe/") && $0.upstreams.last == survivorAddress }.count
        try Self.checkCache(cacheDirectory, answers: answers, survivorAnswered: answered)
    }

    /// Sends `paths` through nginx, `concurrency` at a time; calls `kill` once, right after
    /// the `killAfter`th answer (the other workers are mid-request then).
    static func send(
        _ paths: [String], to base: String, client: HTTPClient, kill: @escaping @Sendable () -> Void
    ) async throws -> [Answer] {
        let counts = Counts()
        return try await withThrowingTaskGroup(of: [Answer].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var mine: [Answer] = []
                    while true {
                        let index = counts.next.withLock { n -> Int in
                            defer { n += 1 }
                            return n
                        }
                        guard index < paths.count else { return mine }
                        let response = try await client.execute(HTTPClientRequest(url: base + paths[index]), timeout: .seconds(60))
                        let body = try await response.body.collect(upTo: 64 << 20)
                        mine.append(Answer(index: index, status: Int(response.status.code),
                                           etag: response.headers.first(name: "ETag"), body: Data(body.readableBytesView)))
                        if counts.finished.withLock({ n -> Bool in
                            n += 1
                            return n == killAfter
                        }) { kill() }
                    }
                }
            }
            var all: [Answer] = []
            for try await part in group { all += part }
            return all.sorted { $0.index < $1.index }
        }
    }

    /// The workers' shared counters: the next request to send and the answers so far.
    final class Counts: Sendable {
        let next = Mutex(0)
        let finished = Mutex(0)
    }

    /// Checks every non-hidden file under `directory` (hidden ones are temporary files a
    /// killed writer left, never renamed into place): result entries (`results/`) parse,
    /// decode, and hold exactly the bytes nginx delivered with the same ETag; source entries
    /// (`originals/`) are images that decode. The survivor flushed on SIGTERM, so each request it answered has its entry.
    static func checkCache(_ directory: URL, answers: [Answer], survivorAnswered: Int) throws {
        let delivered = Dictionary(answers.compactMap { a in a.etag.map { ($0, a.body) } }) { first, _ in first }
        var results = 0, sources = 0
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard url.lastPathComponent.first != ".",
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let data = try Data(contentsOf: url)
            if url.pathComponents.contains("results") {
                results += 1
                let entry = try #require(RenderedImage(serialized: data), "unreadable result entry \(url.lastPathComponent)")
                let image = try ImageCodersManager.shared.decode(entry.data, options: ImageDecodeOptions())
                #expect(image.width > 0 && image.format == entry.format, "\(url.lastPathComponent)")
                #expect(delivered[entry.etag] == entry.data, "result \(url.lastPathComponent) differs from what nginx delivered")
            } else {
                sources += 1
                // A source entry is the image file itself (its metadata is extended data).
                #expect(url.pathComponents.contains("originals"), "\(url.path) is neither a result nor a source")
                #expect(throws: Never.self, "source entry \(url.lastPathComponent) does not decode") {
                    _ = try ImageCodersManager.shared.decode(data, options: ImageDecodeOptions())
                }
            }
        }
        #expect(results >= survivorAnswered, "\(results) result entries for \(survivorAnswered) answers of the survivor")
        #expect(sources >= 1)
    }

    /// `size` scaled to fit `box` (never enlarged), as `rs:fit` does.
    static func fit(_ size: (width: Int, height: Int), into box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let scale = min(Double(box.width) / Double(size.width), Double(box.height) / Double(size.height), 1)
        return (Int((Double(size.width) * scale).rounded()), Int((Double(size.height) * scale).rounded()))
    }
}
