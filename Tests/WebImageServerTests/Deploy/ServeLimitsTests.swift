import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// Issue 23's limits, through the built `webimage serve` as a deployment runs it: the
/// disk caches under `--cache-max-size`, results keyed by settings across a restart, and
/// decoded pixels under `--max-memory` (the process's peak RSS).
@Suite("webimage serve: disk and memory limits", .serialized)
struct ServeLimitsTests {
    static let enabled = FileManager.default.isExecutableFile(atPath: ServeInstance.executable.path)

    /// Bytes of regular files under `directory`: entries (names not starting with a dot)
    /// and everything (temporary files and the budget's ledger included).
    static func usage(_ directory: URL) -> (entries: Int, all: Int) {
        var entries = 0, all = 0
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]),
                  values.isRegularFile == true, let size = values.fileSize else { continue }
            all += size
            if url.lastPathComponent.first != "." { entries += size }
        }
        return (entries, all)
    }

    /// ``usage(_:)`` once two walks 100 ms apart agree (the background writes are done), at
    /// most 10 s; throws when the directory never settles.
    struct Unsettled: Error, CustomStringConvertible {
        let description = "the cache directory still changed after 10 s without requests"
    }

    static func settledUsage(_ directory: URL) async throws -> (entries: Int, all: Int) {
        var last = usage(directory)
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(100))
            let now = usage(directory)
            if now == last { return now }
            last = now
        }
        throw Unsettled()
    }

    static func path(_ source: URL, _ options: String, ext: String) -> String {
        let encoded = Data(source.absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "/unsafe/\(options)/\(encoded).\(ext)"
    }

    static func get(_ base: String, _ path: String) async throws -> (status: Int, etag: String?, body: Data) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers.first(name: "ETag"), Data(buffer: body))
    }

    @Test(
        "a flood of distinct results under --cache-max-size 1 MiB: within the limit after every batch and after SIGTERM; a restart with another --quality serves new bytes",
        .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(5)))
    func diskFloodAndRestart() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let cache = work.appendingPathComponent("cache")
        let limit = 1 << 20
        try await TestOrigin.with { origin in
            let photo = try Data(contentsOf: ServeInstance.packageRoot.appendingPathComponent("Tests/Fixtures/corpus/jpeg/wuffs/harvesters.jpeg"))
            origin.route("/photo.jpg", .init(body: Array(photo), contentType: "image/jpeg"))
            let flags = ["--cache-dir", cache.path, "--allow-private-addresses", "--cache-max-size", "\(limit)"]

            var serve = try await ServeInstance.start(flags + ["--quality", "90"], log: work.appendingPathComponent("a.log"), client: .shared)
            let probe = Self.path(origin.url("/photo.jpg"), "rs:fit:500:500", ext: "jpg")
            let first = try await Self.get(serve.baseURL, probe)
            #expect(first.status == 200)
            // Distinct outputs of ~40-90 KB each: far more than the limit in all.
            let base = serve.baseURL
            for batch in 0..<4 {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for i in 0..<12 {
                        let side = 300 + batch * 60 + i * 5
                        let path = Self.path(origin.url("/photo.jpg"), "rs:fit:\(side):\(side)/q:95", ext: "jpg")
                        group.addTask { try await Self.get(base, path).status }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                // Result writes finish in the background, each linking its entry and then trimming
                // in one locked step; a directory walk is no snapshot, so one that overlaps such a
                // step can add a file already trimmed to one just linked. Read when the writes are done.
                let used = try await Self.settledUsage(cache)
                #expect(used.entries <= limit, "batch \(batch): \(used.entries) bytes of entries")
                #expect(used.all <= limit + 12 * 200_000, "batch \(batch): \(used.all) bytes in all")
            }
            await serve.process.stop()
            #expect(serve.process.process.terminationStatus == 0)
            let after = Self.usage(cache)
            #expect(after.entries <= limit, "after SIGTERM: \(after.entries)")
            #expect(after.all <= limit + 64, "after SIGTERM nothing is in flight: \(after.all)")

            // The same directory, another default quality: new bytes under a new ETag.
            serve = try await ServeInstance.start(flags + ["--quality", "30"], log: work.appendingPathComponent("b.log"), client: .shared)
            let second = try await Self.get(serve.baseURL, probe)
            #expect(second.status == 200)
            #expect(second.etag != first.etag)
            #expect(second.body != first.body && second.body.count < first.body.count)
            await serve.process.stop()
        }
    }

    /// The process's peak resident set (VmHWM) and current one (VmRSS), in bytes.
    static func memory(of pid: Int32) -> (peak: Int, now: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        guard let peak = field("VmHWM"), let now = field("VmRSS") else { return nil }
        return (peak, now)
    }

    /// Resets VmHWM to the current RSS (Linux ≥ 4.0: writing 5 to clear_refs).
    static func resetPeak(of pid: Int32) -> Bool {
        FileManager.default.createFile(atPath: "/proc/\(pid)/clear_refs", contents: Data("5".utf8))
    }

    @Test(
        "400 distinct requests for a 12 MP source, 8 at a time, under --max-memory 16 MiB: peak RSS stays within the budget",
        .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(8)))
    func memoryBudget() async throws {
        // 4032×3024: the corpus's 12 MP photo (baseline, one scan: decoded strip by strip).
        let photo = try Data(contentsOf: ServeInstance.packageRoot.appendingPathComponent(
            "Tests/Fixtures/corpus/jpeg/large/dog_exif_extended_xmp_icc.jpg"))
        // Each request plans ~12 MB (decoded size after shrink-on-load, intermediates), so the
        // budget lets one run at a time. Rows stream strip by strip, so what they really hold
        // is smaller: 14 MiB of growth measured (freed buffers stay in malloc's arenas for reuse).
        try await Self.flood(photo, budget: 16 << 20, requests: 400)
    }

    @Test(
        "40 distinct requests for a 12 MP progressive source, 8 at a time, under --max-memory 96 MiB: libjpeg's coefficient arrays are budgeted",
        .enabled(if: enabled, "the webimage product is not built"), .timeLimit(.minutes(8)))
    func progressiveMemoryBudget() async throws {
        // The same photo stored progressive: whatever scale it is decoded at, libjpeg holds
        // the whole image's coefficients (2 bytes per sample, ≥ 36 MB at 4:2:0; 36 MiB of
        // growth measured). Planned from the decoded size alone (~13 MB), all eight fit in
        // the budget and none waits (checked: the test fails that way).
        let coder = JPEGCoder()
        let image = try coder.decode(Data(contentsOf: ServeInstance.packageRoot.appendingPathComponent(
            "Tests/Fixtures/corpus/jpeg/large/dog_exif_extended_xmp_icc.jpg")), options: ImageDecodeOptions())
        let photo = try coder.encode(image, as: .jpeg, options: ImageEncodeOptions(quality: 0.85, progressive: true))
        try await Self.flood(photo, budget: 96 << 20, requests: 40)
    }

    /// Serves `photo` and asks for `requests` distinct thumbnails of it, 8 at a time, under
    /// `--max-memory budget`: some must wait, and peak RSS may grow by the budget plus an
    /// allowance for allocator slack and per-thread arenas (not a second budget).
    static func flood(_ photo: Data, budget: Int, requests: Int) async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestOrigin.with { origin in
            origin.route("/photo.jpg", .init(body: Array(photo), contentType: "image/jpeg"))
            let serve = try await ServeInstance.start(
                ["--cache-dir", work.appendingPathComponent("cache").path, "--allow-private-addresses",
                 "--max-memory", "\(budget)", "--max-concurrent-transforms", "8", "--max-queue", "\(requests)"],
                log: work.appendingPathComponent("serve.log"), client: .shared)
            // Warm up: the source is fetched and cached, the codecs are loaded.
            let warm = try await get(serve.baseURL, path(origin.url("/photo.jpg"), "rs:fit:99:99", ext: "jpg"))
            #expect(warm.status == 200)
            let baseline = try #require(memory(of: serve.process.pid))
            let canReset = resetPeak(of: serve.process.pid)
            let start = canReset ? baseline.now : baseline.peak
            let next = Tickets()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        while true {
                            let i = next.take(below: requests)
                            guard let i else { return }
                            let side = 100 + i
                            let answer = try await get(serve.baseURL, path(origin.url("/photo.jpg"), "rs:fit:\(side):\(side)", ext: "jpg"))
                            #expect(answer.status == 200, "request \(i)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let after = try #require(memory(of: serve.process.pid))
            // The budget made requests wait for each other (the gauge counts them).
            let metrics = String(decoding: try await get(serve.baseURL, "/metrics").body, as: UTF8.self)
            let waits = metrics.split(separator: "\n").first { $0.hasPrefix("webimage_serve_memory_waits ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            #expect(waits > 0, "no request waited for memory")
            await serve.process.stop()
            let grown = after.peak - start
            print("peak RSS grew by \(grown >> 20) MiB under a \(budget >> 20) MiB budget")
            if Sanitizer.inflatesMemory {
                print("peak RSS not bounded under a sanitizer (shadow memory, quarantine); make test checks it")
            } else {
                #expect(grown <= budget + 8 << 20, "peak RSS grew by \(grown >> 20) MiB over a \(budget >> 20) MiB budget")
            }
            let log = (try? String(contentsOf: serve.process.log, encoding: .utf8)) ?? ""
            #expect(!log.contains("warning"), "\(serve.process.logTail)")
        }
    }
}

/// Hands out 0, 1, 2… to several tasks.
final class Tickets: Sendable {
    private let next = Mutex(0)

    /// The next number below `limit`, or `nil` when all are taken.
    func take(below limit: Int) -> Int? {
        next.withLock { n in
            guard n < limit else { return nil }
            defer { n += 1 }
            return n
        }
    }
}
