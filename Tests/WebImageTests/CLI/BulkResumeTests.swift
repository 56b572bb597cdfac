import Foundation
import Synchronization
import Testing
import WebImageTestOrigin

/// A bulk job killed half-way and resumed, and one list split into shards.
@Suite("webimage fetch bulk: kill, resume, shards", .serialized, .timeLimit(.minutes(3)))
struct BulkResumeTests {
    static let jobFlags = ["--memory-only", "--thumbnail", "48x48", "--format", "jpeg", "--quality", "90",
                           "--out-layout", "shards:4"]

    @Test("SIGKILL half-way, then --resume: the same files as an uninterrupted run, none half-written")
    func killAndResume() async throws {
        try await TestOrigin.with { origin in
            let isSlow = SlowFlag()
            isSlow.isOn = true
            let urls = try BulkFixture.serveImages(origin, count: 24, fastCount: 10, isSlow: isSlow)
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)

            let reference = work.url.appendingPathComponent("reference")
            isSlow.isOn = false
            let whole = try await WebImageTool.run(["fetch", "--file", list, "--out", reference.path] + Self.jobFlags)
            #expect(whole.status == 0, "\(whole.err)")
            let expected = BulkFixture.files(in: reference)
            #expect(expected.count == urls.count)

            isSlow.isOn = true
            let out = work.url.appendingPathComponent("out")
            let manifest = work.url.appendingPathComponent("manifest.jsonl").path
            let arguments = ["fetch", "--file", list, "--out", out.path, "--manifest", manifest, "--resume"] + Self.jobFlags
            let child = try BulkChild(WebImageTool.executable, arguments, directory: work)
            let deadline = ContinuousClock.now + .seconds(30)
            while BulkFixture.manifest(manifest).count < 10, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            child.kill()
            let status = await child.wait()
            #expect(status == SIGKILL, "the job was still running when killed")
            let killed = BulkFixture.manifest(manifest)
            #expect(killed.count >= 10 && killed.count < urls.count)
            // Whatever the killed job left among the results is complete.
            let partial = BulkFixture.files(in: out)
            #expect(!partial.isEmpty && partial.count < urls.count)
            for (name, data) in partial { #expect(expected[name] == data, "\(name) is not the finished file") }

            isSlow.isOn = false
            let resumed = try await WebImageTool.run(arguments)
            #expect(resumed.status == 0, "\(resumed.err)")
            #expect(resumed.out.contains("skipped \(killed.count)"), "\(resumed.out)")
            #expect(BulkFixture.files(in: out) == expected)
            #expect(BulkFixture.files(in: out, includingPartial: true).count == expected.count, "no temporary file is left")
            let ok = BulkFixture.manifest(manifest).filter { $0["ok"] as? Bool == true }.compactMap { $0["url"] as? String }
            #expect(ok.count == urls.count && Set(ok) == Set(urls))
        }
    }

    @Test("--shard I/N: N jobs into one --out give the unsharded set, each URL in exactly one shard")
    func shardSplit() async throws {
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 10)
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(["# shards"] + urls, in: work)
            let reference = work.url.appendingPathComponent("reference")
            let whole = try await WebImageTool.run(["fetch", "--file", list, "--out", reference.path] + Self.jobFlags)
            #expect(whole.status == 0, "\(whole.err)")

            let out = work.url.appendingPathComponent("sharded")
            func shard(_ i: Int) async throws -> WebImageTool.Run {
                try await WebImageTool.run(["fetch", "--file", list, "--shard", "\(i)/4", "--out", out.path, "--manifest",
                                            work.url.appendingPathComponent("m-\(i).jsonl").path] + Self.jobFlags)
            }
            async let r0 = shard(0)
            async let r1 = shard(1)
            async let r2 = shard(2)
            async let r3 = shard(3)
            let runs = try await [r0, r1, r2, r3]
            #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.err))")
            #expect(BulkFixture.files(in: out) == BulkFixture.files(in: reference))
            for i in 0..<4 {
                let indices = BulkFixture.manifest(work.url.appendingPathComponent("m-\(i).jsonl").path).compactMap { $0["index"] as? Int }
                #expect(indices.sorted() == Array(stride(from: i, to: urls.count, by: 4)))
            }
        }
    }

    @Test("the bulk article's GNU parallel example over 4 shards (skipped without parallel)")
    func gnuParallel() async throws {
        let parallel = URL(fileURLWithPath: "/usr/bin/parallel")
        guard FileManager.default.isExecutableFile(atPath: parallel.path) else {
            print("skipped: GNU parallel is not installed (scripts/install-debs.sh parallel)")
            return
        }
        try await TestOrigin.with { origin in
            let urls = try BulkFixture.serveImages(origin, count: 9)
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let images = work.url.appendingPathComponent("images").path
            // As in BulkDatasets.md, with the test's paths.
            let child = try BulkChild(parallel, [
                "--will-cite", "-j", "4", WebImageTool.executable.path, "fetch", "--file", list, "--shard", "{}/4",
                "--thumbnail", "48x48", "--format", "jpeg", "--quality", "90", "--out", images, "--out-layout", "shards:4",
                "--manifest", work.url.appendingPathComponent("manifest-{}.jsonl").path, "--resume", "--memory-only",
                ":::", "0", "1", "2", "3",
            ], directory: work)
            #expect(await child.wait() == 0)
            let files = BulkFixture.files(in: URL(fileURLWithPath: images))
            #expect(files.count == urls.count)
            let ok = (0..<4).flatMap { BulkFixture.manifest(work.url.appendingPathComponent("manifest-\($0).jsonl").path) }
            #expect(Set(ok.compactMap { $0["url"] as? String }) == Set(urls) && ok.count == urls.count)
        }
    }
}
