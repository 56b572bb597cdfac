import Crypto
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `--output_folder s3://bucket/prefix`, as img2dataset writes through fsspec (its
/// `main.py`: the same names under the prefix as in a local folder; `incremental` skips the
/// shards whose `NNNNN_stats.json` exists), against moto's S3 server with authentication
/// on. What lands is read back with boto3 and compared with a local run's folder; the
/// expected names, part counts and ETags are computed here.
@Suite("webimage img2dataset: s3:// output folder", .serialized, .timeLimit(.minutes(5)),
       .enabled(if: MotoS3.unavailableReason == nil, "moto is not installed in .build-test/venv"))
struct DatasetS3OutputTests {
    /// A started origin serving `count` distinct PNGs at `/img/N.png` and a 404 at `/missing.jpg`.
    static func withOrigin(images count: Int, _ body: (TestOrigin) async throws -> Void) async throws {
        try await TestOrigin.with { origin in
            for i in 0..<count {
                let color = (UInt8(i * 37 % 256), UInt8(i * 91 % 256), UInt8(255 - i * 13 % 256), UInt8(255))
                origin.route("/img/\(i).png", .init(body: try DatasetFixture.png(40 + i, 30, color: color), contentType: "image/png"))
            }
            origin.route("/missing.jpg", .status(404))
            try await body(origin)
        }
    }

    /// A list of `count` URLs `/folder/0.png`, `/folder/1.png`… on `origin`, written in `work`.
    static func list(_ origin: TestOrigin, _ folder: String, count: Int, in work: TemporaryDirectory) throws -> String {
        try BulkFixture.list((0..<count).map { origin.url("/\(folder)/\($0).png").absoluteString }, in: work)
    }

    /// A folder for the child's TMPDIR, where the spool goes.
    static func spoolFolder(in work: TemporaryDirectory) throws -> URL {
        let tmp = work.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        return tmp
    }

    /// The leftovers of our spool folders in `tmp` (the child's TMPDIR).
    static func spools(in tmp: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? []).filter { $0.hasPrefix("webimage-s3-spool") }
    }

    /// `count` 1024×1024 noise PNGs (~3 MiB each: noise does not compress) served at `/noise/N.png`.
    static func noiseImages(_ count: Int, on origin: TestOrigin) throws -> [Data] {
        try (0..<count).map { i in
            var pixels = PixelBuffer(width: 1024, height: 1024)
            // xorshift64: fast in a debug build, and enough noise to defeat deflate.
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(i)
            pixels.withUnsafeMutableBytes { p in
                for j in stride(from: 0, to: p.count, by: 4) {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    (p[j], p[j + 1], p[j + 2], p[j + 3]) = (UInt8(truncatingIfNeeded: state), UInt8(truncatingIfNeeded: state >> 8),
                                                            UInt8(truncatingIfNeeded: state >> 16), 255)
                }
            }
            let png = Data(try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png,
                                                                 options: ImageEncodeOptions()))
            origin.route("/noise/\(i).png", .init(body: [UInt8](png), contentType: "image/png"))
            return png
        }
    }

    @Test("each output format lands under the prefix with img2dataset's names, equal to a local run's files",
          arguments: ["webdataset", "files", "parquet"])
    func sameAsLocal(format: String) async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 23) { origin in
                // 25 rows, 10 per shard: three shards, two failures in the last.
                let missing = origin.url("/missing.jpg").absoluteString
                let urls = (0..<23).map { origin.url("/img/\($0).png").absoluteString } + [missing, missing]
                let list = try BulkFixture.list(urls, in: work)
                let common = ["img2dataset", "--url_list=\(list)", "--output_format=\(format)", "--number_sample_per_shard=10",
                              "--thread_count=4"]
                let local = work.url.appendingPathComponent("local")
                let localRun = try await WebImageTool.run(common + ["--output_folder=\(local.path)"])
                #expect(localRun.status == 0, "\(localRun.err)")
                let tmp = try Self.spoolFolder(in: work)
                let run = try await WebImageTool.run(common + ["--output_folder=s3://\(MotoS3.bucket)/runs/\(format)/"],
                                                     environment: moto.environment(spool: tmp))
                #expect(run.status == 0, "\(run.err)")

                // img2dataset's names per shard for each format (writer.py), computed here.
                let etags = try await moto.etags(under: "runs/\(format)")
                let names: Set<String> = Set(etags.keys)
                for shard in 0..<3 {
                    let s = String(format: "%05d", shard)
                    #expect(names.contains("\(s)_stats.json"))
                    switch format {
                    case "webdataset": #expect(names.contains("\(s).tar") && names.contains("\(s).parquet"))
                    case "parquet": #expect(names.contains("\(s).parquet"))
                    default: #expect(names.contains("\(s).parquet") && names.contains { $0.hasPrefix("\(s)/") })
                    }
                }
                #expect(!names.contains { $0.hasPrefix(".") || $0.contains("/.") || $0.contains("partial") })

                // Byte for byte what the local run wrote (the stats' times aside).
                let back = work.url.appendingPathComponent("back")
                try await moto.download(under: "runs/\(format)", to: back)
                let expected = try DatasetFixture.comparable(local)
                let got = try DatasetFixture.comparable(back)
                #expect(Set(got.keys) == Set(expected.keys))
                for (name, data) in expected { #expect(got[name] == data, "\(name) differs from the local run's") }
                #expect(try await moto.pendingUploads() == 0)
                #expect(Self.spools(in: tmp).isEmpty, "the spool folder was left behind")
            }
        }
    }

    @Test("a shard larger than the part size goes up by multipart upload, equal to the local tar")
    func multipart() async throws {
        try await MotoS3.with { moto, work in
            try await TestOrigin.with { origin in
                // Three 1024×1024 noise PNGs (~3 MiB each: noise does not compress), kept as served.
                let served = try Self.noiseImages(3, on: origin)
                let list = try Self.list(origin, "noise", count: 3, in: work)
                let common = ["img2dataset", "--url_list=\(list)", "--output_format=webdataset", "--disable_all_reencoding=True"]
                let local = work.url.appendingPathComponent("local")
                let localRun = try await WebImageTool.run(common + ["--output_folder=\(local.path)"])
                #expect(localRun.status == 0, "\(localRun.err)")
                let tmp = try Self.spoolFolder(in: work)
                // S3's least part, so three images make a multipart tar.
                let partSize = 5 * 1024 * 1024
                var environment = moto.environment(spool: tmp)
                environment["WEBIMAGE_S3_PART_SIZE"] = "\(partSize)"
                let run = try await WebImageTool.run(common + ["--output_folder=s3://\(MotoS3.bucket)/big"], environment: environment)
                #expect(run.status == 0, "\(run.err)")

                let localTar = try Data(contentsOf: local.appendingPathComponent("00000.tar"))
                let parts = (localTar.count + partSize - 1) / partSize
                try #require(parts >= 2, "the tar (\(localTar.count) bytes) is not over one part")
                let etags = try await moto.etags(under: "big")
                // A multipart object's ETag is "<md5 of the parts' md5s>-<part count>".
                #expect(etags["00000.tar"]?.hasSuffix("-\(parts)\"") == true, "\(etags)")
                #expect(etags["00000.parquet"].map { !$0.contains("-") } == true, "a small file goes in one PUT")
                let back = work.url.appendingPathComponent("back")
                try await moto.download(under: "big", to: back)
                let tar = back.appendingPathComponent("00000.tar")
                #expect(try Data(contentsOf: tar) == localTar)
                let images = try DatasetFixture.tarMembers(tar).filter { $0.name.hasSuffix(".jpg") }.map(\.data)
                #expect(images == served)
                #expect(try await moto.pendingUploads() == 0)
                #expect(Self.spools(in: tmp).isEmpty)
            }
        }
    }

    @Test("missing or wrong credentials, or another scheme: a clear error before any download, no objects")
    func credentials() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 3) { origin in
                let list = try Self.list(origin, "img", count: 3, in: work)
                let tmp = try Self.spoolFolder(in: work)

                var missing = moto.environment(spool: tmp)
                missing["AWS_ACCESS_KEY_ID"] = ""
                let noKey = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=s3://\(MotoS3.bucket)/none"],
                                                       environment: missing)
                #expect(noKey.status == 2)
                #expect(noKey.err.contains("AWS_ACCESS_KEY_ID"), "\(noKey.err)")

                let wrong = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=s3://\(MotoS3.bucket)/bad"],
                                                       environment: moto.environment(spool: tmp, secret: "not-the-secret"))
                #expect(wrong.status != 0)
                #expect(wrong.err.contains("SignatureDoesNotMatch") && wrong.err.contains("s3://\(MotoS3.bucket)/bad"), "\(wrong.err)")

                let other = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=gs://\(MotoS3.bucket)/gs"],
                                                       environment: moto.environment(spool: tmp))
                #expect(other.status == 2)
                #expect(other.err.contains("gs://"), "\(other.err)")

                let none = try await moto.etags(under: "none")
                let bad = try await moto.etags(under: "bad")
                #expect(none.isEmpty && bad.isEmpty)
                #expect((0..<3).allSatisfy { origin.requestCount("/img/\($0).png") == 0 }, "an image was fetched")
                #expect(Self.spools(in: tmp).isEmpty)
            }
        }
    }

    @Test("incremental_mode incremental skips the shards whose stats object exists")
    func incremental() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 20) { origin in
                let list = try Self.list(origin, "img", count: 20, in: work)
                let tmp = try Self.spoolFolder(in: work)
                let arguments = ["img2dataset", "--url_list=\(list)", "--output_folder=s3://\(MotoS3.bucket)/inc",
                                 "--output_format=webdataset", "--number_sample_per_shard=10"]
                let first = try await WebImageTool.run(arguments, environment: moto.environment(spool: tmp))
                #expect(first.status == 0, "\(first.err)")
                // Shard 0 stays done (its tar replaced by a marker to see it is not rewritten);
                // shard 1 loses its stats, so it counts as unfinished.
                _ = try await moto.boto(#"""
                    s3.put_object(Bucket=sys.argv[4], Key="inc/00000.tar", Body=b"kept")
                    s3.delete_object(Bucket=sys.argv[4], Key="inc/00001_stats.json")
                    """#, [MotoS3.bucket])
                let second = try await WebImageTool.run(arguments, environment: moto.environment(spool: tmp))
                #expect(second.status == 0, "\(second.err)")
                #expect(second.out.contains("(1 already there)"), "\(second.out)")
                let etags = try await moto.etags(under: "inc")
                let kept = "\"" + Insecure.MD5.hash(data: Data("kept".utf8)).map { String(format: "%02x", $0) }.joined() + "\""
                #expect(etags["00000.tar"] == kept)
                #expect(etags["00001_stats.json"] != nil && etags["00001.tar"] != nil)
                #expect((0..<10).allSatisfy { origin.requestCount("/img/\($0).png") == 1 }, "shard 0 was fetched again")
                #expect((10..<20).allSatisfy { origin.requestCount("/img/\($0).png") == 2 })
            }
        }
    }

    @Test("an upload S3 refuses: an error naming the object, exit 1, the shard left without its stats")
    func uploadRefused() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 4) { origin in
                // A second user that may do anything but put the first shard's tar.
                let text = try await moto.boto(#"""
                    iam = boto3.client("iam", endpoint_url=sys.argv[1], region_name="us-east-1",
                                       aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
                    iam.create_user(UserName="limited")
                    iam.put_user_policy(UserName="limited", PolicyName="most", PolicyDocument=json.dumps({
                        "Version": "2012-10-17", "Statement": [
                            {"Effect": "Allow", "Action": "*", "Resource": "*"},
                            {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::" + sys.argv[4] + "/deny/00000.tar"}]}))
                    key = iam.create_access_key(UserName="limited")["AccessKey"]
                    print(json.dumps([key["AccessKeyId"], key["SecretAccessKey"]]))
                    """#, [MotoS3.bucket])
                let pair = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String])
                let list = try Self.list(origin, "img", count: 4, in: work)
                let tmp = try Self.spoolFolder(in: work)
                var environment = moto.environment(spool: tmp)
                environment["AWS_ACCESS_KEY_ID"] = pair[0]
                environment["AWS_SECRET_ACCESS_KEY"] = pair[1]
                let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=s3://\(MotoS3.bucket)/deny",
                                                      "--output_format=webdataset"], environment: environment)
                #expect(run.status == 1)
                #expect(run.err.contains("s3://\(MotoS3.bucket)/deny/00000.tar") && run.err.contains("AccessDenied"), "\(run.err)")
                let etags = try await moto.etags(under: "deny")
                #expect(etags["00000.tar"] == nil && etags["00000_stats.json"] == nil, "\(etags)")
                #expect(try await moto.pendingUploads() == 0)
                #expect(Self.spools(in: tmp).isEmpty)
            }
        }
    }

    @Test("a multipart upload S3 refuses to complete is aborted: an error naming the object, no object, no parts kept")
    func multipartAborted() async throws {
        // moto's least part raised above ours: CompleteMultipartUpload answers EntityTooSmall.
        try await MotoS3.with(environment: ["S3_UPLOAD_PART_MIN_SIZE": "\(6 * 1024 * 1024)"]) { moto, work in
            try await TestOrigin.with { origin in
                _ = try Self.noiseImages(3, on: origin)
                let list = try Self.list(origin, "noise", count: 3, in: work)
                let tmp = try Self.spoolFolder(in: work)
                var environment = moto.environment(spool: tmp)
                environment["WEBIMAGE_S3_PART_SIZE"] = "\(5 * 1024 * 1024)"
                let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_format=webdataset",
                                                      "--disable_all_reencoding=True", "--output_folder=s3://\(MotoS3.bucket)/abort"],
                                                     environment: environment)
                #expect(run.status == 1)
                #expect(run.err.contains("s3://\(MotoS3.bucket)/abort/00000.tar") && run.err.contains("EntityTooSmall"), "\(run.err)")
                let etags = try await moto.etags(under: "abort")
                #expect(etags["00000.tar"] == nil && etags["00000_stats.json"] == nil, "\(etags)")
                #expect(try await moto.pendingUploads() == 0, "the multipart upload was not aborted")
                #expect(Self.spools(in: tmp).isEmpty)
            }
        }
    }

    @Test("incremental_mode extend numbers after the highest stats object; overwrite deletes every object under the prefix first")
    func extendAndOverwrite() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 20) { origin in
                let list = try Self.list(origin, "img", count: 20, in: work)
                let tmp = try Self.spoolFolder(in: work)
                let arguments = ["img2dataset", "--url_list=\(list)", "--output_folder=s3://\(MotoS3.bucket)/ext",
                                 "--output_format=webdataset", "--number_sample_per_shard=10"]
                func shards() async throws -> Set<String> {
                    Set(try await moto.etags(under: "ext").keys.filter { $0.hasSuffix("_stats.json") })
                }
                let first = try await WebImageTool.run(arguments, environment: moto.environment(spool: tmp))
                #expect(first.status == 0, "\(first.err)")
                #expect(try await shards() == ["00000_stats.json", "00001_stats.json"])
                let extended = try await WebImageTool.run(arguments + ["--incremental_mode=extend"], environment: moto.environment(spool: tmp))
                #expect(extended.status == 0, "\(extended.err)")
                #expect(try await shards() == ["00000_stats.json", "00001_stats.json", "00002_stats.json", "00003_stats.json"])
                // An object of another kind under the prefix goes too, as fsspec's rm removes the folder.
                _ = try await moto.boto(#"s3.put_object(Bucket=sys.argv[4], Key="ext/notes/extra.txt", Body=b"x")"#, [MotoS3.bucket])
                let overwritten = try await WebImageTool.run(arguments + ["--incremental_mode=overwrite"],
                                                             environment: moto.environment(spool: tmp))
                #expect(overwritten.status == 0, "\(overwritten.err)")
                let names = Set(try await moto.etags(under: "ext").keys)
                #expect(names == ["00000.tar", "00000.parquet", "00000_stats.json", "00001.tar", "00001.parquet", "00001_stats.json"])
            }
        }
    }

    @Test("fetch --file with img2dataset's flags takes --out s3://…; plain fetch --out refuses it")
    func fetchOut() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 12) { origin in
                let list = try Self.list(origin, "img", count: 12, in: work)
                let tmp = try Self.spoolFolder(in: work)
                let run = try await WebImageTool.run(["fetch", "--file", list, "--output-format", "webdataset",
                                                      "--number-sample-per-shard", "10", "--out", "s3://\(MotoS3.bucket)/fetch"],
                                                     environment: moto.environment(spool: tmp))
                #expect(run.status == 0, "\(run.err)")
                // fetch --file writes the JSON lines beside the parquet metadata.
                let expected: Set<String> = Set(["00000", "00001"].flatMap { ["\($0).tar", "\($0).parquet", "\($0).jsonl", "\($0)_stats.json"] })
                #expect(Set(try await moto.etags(under: "fetch").keys) == expected)
                let plain = try await WebImageTool.run(["fetch", origin.url("/img/0.png").absoluteString, "--out", "s3://\(MotoS3.bucket)/plain"],
                                                       environment: moto.environment(spool: tmp))
                #expect(plain.status == 2)
                #expect(plain.err.contains("s3://") && plain.err.contains("dataset"), "\(plain.err)")
                #expect(origin.requestCount("/img/0.png") == 1, "plain fetch went ahead")
            }
        }
    }

    /// `Tests/Fixtures/s3/part_counting_proxy.py` in front of `moto`: the process, its port,
    /// and the file its counts go to. With `spool`, it also counts finished shards there.
    static func countingProxy(_ moto: MotoS3, work: TemporaryDirectory, spool: URL? = nil) async throws -> (Process, Int, URL) {
        let stats = work.url.appendingPathComponent("proxy-\(UUID().uuidString).json")
        let portFile = work.url.appendingPathComponent("proxy-\(UUID().uuidString).port")
        let proxy = Process()
        proxy.executableURL = MotoS3.venv.appendingPathComponent("python")
        proxy.arguments = [Corpus.packageRoot.appendingPathComponent("Tests/Fixtures/s3/part_counting_proxy.py").path,
                           "\(moto.port)", stats.path, portFile.path] + (spool.map { [$0.path] } ?? [])
        try proxy.run()
        for _ in 0..<100 {
            if let port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap({ Int($0) }) { return (proxy, port, stats) }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(proxy.processIdentifier, SIGKILL)
        throw MotoError("the counting proxy did not start")
    }

    @Test("the spool holds at most two finished shards: the one uploading and the next, however slow the uploads")
    func spoolBounded() async throws {
        try await MotoS3.with { moto, work in
            try await Self.withOrigin(images: 12) { origin in
                let list = try Self.list(origin, "img", count: 12, in: work)
                let tmp = try Self.spoolFolder(in: work)
                // Every object PUT held 0.3 s: six shards are made far faster than they go up.
                let (proxy, port, stats) = try await Self.countingProxy(moto, work: work, spool: tmp)
                defer { kill(proxy.processIdentifier, SIGKILL) }
                var environment = moto.environment(spool: tmp)
                environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(port)"
                let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_format=webdataset",
                                                      "--number_sample_per_shard=2", "--output_folder=s3://\(MotoS3.bucket)/spool"],
                                                     environment: environment)
                #expect(run.status == 0, "\(run.err)")
                let names = Set(try await moto.etags(under: "spool").keys.filter { $0.hasSuffix("_stats.json") })
                #expect(names == Set((0..<6).map { String(format: "%05d_stats.json", $0) }))
                let seen = try DatasetFixture.object(Data(contentsOf: stats))
                let most = try #require(seen["spool_max"] as? Int)
                #expect((1...2).contains(most), "finished shards in the spool at once: \(most)")
                #expect(Self.spools(in: tmp).isEmpty)
            }
        }
    }

    @Test("at most two parts are in flight: an upload of three parts or more through a counting proxy overlaps two, never more")
    func partsInFlight() async throws {
        try await MotoS3.with { moto, work in
            try await TestOrigin.with { origin in
                _ = try Self.noiseImages(5, on: origin)
                let list = try Self.list(origin, "noise", count: 5, in: work)
                let tmp = try Self.spoolFolder(in: work)
                let (proxy, port, stats) = try await Self.countingProxy(moto, work: work)
                defer { kill(proxy.processIdentifier, SIGKILL) }
                let partSize = 5 * 1024 * 1024
                var environment = moto.environment(spool: tmp)
                environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(port)"
                environment["WEBIMAGE_S3_PART_SIZE"] = "\(partSize)"
                let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_format=webdataset",
                                                      "--disable_all_reencoding=True", "--output_folder=s3://\(MotoS3.bucket)/parts"],
                                                     environment: environment)
                #expect(run.status == 0, "\(run.err)")
                let etags = try await moto.etags(under: "parts")
                let count = try #require(etags["00000.tar"]?.split(separator: "-").last.flatMap { Int($0.dropLast()) })
                let seen = try DatasetFixture.object(Data(contentsOf: stats))
                #expect(count >= 3, "the tar should take three parts or more")
                #expect(seen["parts"] as? Int == count)
                #expect(seen["max"] as? Int == 2, "parts in flight at once: \(seen)")
            }
        }
    }
}
