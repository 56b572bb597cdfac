import Foundation
import Synchronization
import Testing
import WebImageTestOrigin

/// Dataset jobs killed and resumed, and split with `--shard I/N`: shards appear whole or
/// not at all, `--resume` completes what was cut short, and N jobs into one folder write
/// exactly what one job writes.
@Suite("webimage fetch: dataset resume and shards", .serialized, .timeLimit(.minutes(3)))
struct DatasetResumeTests {
    static let flags = ["--input-format", "csv", "--caption-col", "caption", "--output-format", "webdataset",
                        "--number-sample-per-shard", "4", "--image-size", "64"]

    /// 24 rows: distinct images; rows from `slowFrom` on answer after 2 s while `isSlow` is on.
    static func rows(_ origin: TestOrigin, slowFrom: Int, isSlow: SlowFlag) throws -> String {
        let jpeg = Array(try Corpus.data(DatasetFixture.jpegPath))
        var csv = "url,caption\n"
        for i in 0..<24 {
            let path = "/img/\(i).jpg"
            if i >= slowFrom {
                origin.route(path) { _ in .init(body: jpeg, contentType: "image/jpeg", delay: isSlow.isOn ? .seconds(2) : .zero) }
            } else {
                origin.route(path, .init(body: jpeg, contentType: "image/jpeg"))
            }
            csv += origin.url(path).absoluteString + ",caption \(i)\n"
        }
        return csv
    }

    @Test("SIGKILL mid-job, then --resume: the shards an uninterrupted run writes, none half-written, no partial file left")
    func killAndResume() async throws {
        try await TestOrigin.with { origin in
            let isSlow = SlowFlag()
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(try Self.rows(origin, slowFrom: 10, isSlow: isSlow), "rows.csv", in: work)

            let reference = work.url.appendingPathComponent("reference")
            let whole = try await WebImageTool.run(["fetch", "--file", list, "--out", reference.path] + Self.flags)
            #expect(whole.status == 0, "\(whole.err)")
            let expected = try DatasetFixture.comparable(reference)
            #expect(expected.count == 24, "6 shards × tar, jsonl, parquet, stats: \(expected.keys.sorted())")

            isSlow.isOn = true
            let out = work.url.appendingPathComponent("out")
            let arguments = ["fetch", "--file", list, "--out", out.path, "--resume"] + Self.flags
            let child = try BulkChild(WebImageTool.executable, arguments, directory: work)
            // Shards 0 and 1 (rows 0-7) are fast; shard 2 holds fast and slow rows: kill while it is open.
            let deadline = ContinuousClock.now + .seconds(30)
            while !FileManager.default.fileExists(atPath: out.appendingPathComponent("00001_stats.json").path),
                  ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(300))
            child.kill()
            #expect(await child.wait() == SIGKILL, "the job was still running when killed")
            let killed = DatasetFixture.tree(out)
            #expect(killed["00001_stats.json"] != nil && killed["00005_stats.json"] == nil)
            // Whatever carries a shard's name is the finished shard.
            let killedComparable = try DatasetFixture.comparable(out)
            for (name, data) in killedComparable where !name.hasPrefix(".") {
                #expect(expected[name] == data, "\(name) is not the finished file")
            }

            isSlow.isOn = false
            let resumed = try await WebImageTool.run(arguments)
            #expect(resumed.status == 0, "\(resumed.err)")
            #expect(resumed.out.contains("already there"), "\(resumed.out)")
            #expect(try DatasetFixture.comparable(out) == expected, "the same files, no partial one left")
            // The finished shards were not downloaded again.
            #expect(origin.requestCount("/img/0.jpg") == 2, "row 0: the reference run and the killed run only")
        }
    }

    @Test("--shard I/3 into one folder: the union is the unsharded run, byte for byte (stats times aside)")
    func shardUnion() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(try Self.rows(origin, slowFrom: .max, isSlow: SlowFlag()), "rows.csv", in: work)
            let reference = work.url.appendingPathComponent("reference")
            #expect(try await WebImageTool.run(["fetch", "--file", list, "--out", reference.path] + Self.flags).status == 0)
            let out = work.url.appendingPathComponent("sharded")
            var written: [Set<String>] = []
            for i in 0..<3 {
                let before = Set(DatasetFixture.tree(out).keys)
                let run = try await WebImageTool.run(["fetch", "--file", list, "--out", out.path, "--shard", "\(i)/3"] + Self.flags)
                #expect(run.status == 0, "\(run.err)")
                written.append(Set(DatasetFixture.tree(out).keys).subtracting(before))
            }
            // Shard s goes to job s mod 3: disjoint names.
            #expect(written[0] == ["00000.tar", "00000.jsonl", "00000.parquet", "00000_stats.json",
                                   "00003.tar", "00003.jsonl", "00003.parquet", "00003_stats.json"])
            #expect(written[1].count == 8 && written[2].count == 8 && written[1].isDisjoint(with: written[2]))
            #expect(try DatasetFixture.comparable(out) == DatasetFixture.comparable(reference))
        }
    }

    @Test("A shard that cannot be written: exit 1, a message, no stats file for it; the other shards are written")
    func unwritableShard() async throws {
        try await TestOrigin.with { origin in
            let work = try TemporaryDirectory()
            let list = try DatasetFixture.write(try Self.rows(origin, slowFrom: .max, isSlow: SlowFlag()), "rows.csv", in: work)
            let out = work.url.appendingPathComponent("out")
            // A folder where shard 1's partial tar must go (root may write anywhere, but not a file over a folder).
            try FileManager.default.createDirectory(at: out.appendingPathComponent(".00001.tar.partial/x"), withIntermediateDirectories: true)
            let run = try await WebImageTool.run(["fetch", "--file", list, "--out", out.path] + Self.flags)
            #expect(run.status == 1)
            #expect(run.err.contains(".00001.tar.partial"), "\(run.err)")
            let names = Set(TemporaryDirectory.names(in: out))
            #expect(!names.contains("00001_stats.json") && !names.contains("00001.tar"))
            for shard in [0, 2, 3, 4, 5] { #expect(names.contains(String(format: "%05d_stats.json", shard))) }
        }
    }
}
