import Crypto
import Foundation
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// `--output_format parquet`, as img2dataset 1.47's `ParquetSampleWriter` writes it
/// (writer.py): one `NNNNN.parquet` per shard, a row for every sample (failures included),
/// the metadata columns in their order and the encoded image last in a binary column named
/// after the encode format, null for a failure; its buffered writer flushes every 100 rows.
/// pyarrow (the test venv) reads the file; the hashes are computed here from the served bytes.
@Suite("webimage img2dataset: --output_format parquet", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetParquetOutputTests {
    @Test("one parquet per shard: metadata columns, then the image as binary; every row; row groups of 100")
    func parquetOutput() async throws {
        try await TestOrigin.with { origin in
            let png = try DatasetFixture.png(300, 200)
            origin.route("/a.png", .init(body: png, contentType: "image/png"))
            origin.route("/missing.jpg", .status(404))
            // 205 rows: every fifth one missing, so 164 images and 41 failures, three row groups.
            let urls = (0..<205).map { i in origin.url(i % 5 == 4 ? "/missing.jpg" : "/a.png").absoluteString }
            let work = try TemporaryDirectory()
            let list = try BulkFixture.list(urls, in: work)
            let out = work.url.appendingPathComponent("pq")
            let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=\(out.path)",
                                                  "--output_format=parquet", "--thread_count=8"])
            #expect(run.status == 0, "\(run.err)")
            // What img2dataset 1.47 leaves with output_format parquet (checked by hand against it):
            // the shard and its stats, no partial file and no JSON lines (those only with --jsonl_metadata).
            #expect(Set(TemporaryDirectory.names(in: out)) == ["00000.parquet", "00000_stats.json"])
            let read = try await Img2DatasetFixture.runPython(#"""
                import json, sys, hashlib, io
                import pyarrow.parquet as pq
                f = pq.ParquetFile(sys.argv[1] + "/00000.parquet")
                t = f.read()
                rows = t.to_pylist()
                print(json.dumps({
                    "names": t.column_names, "types": [str(x.type) for x in t.schema],
                    "row_groups": f.num_row_groups, "rows": len(rows),
                    "images": [None if r["jpg"] is None else hashlib.sha256(r["jpg"]).hexdigest() for r in rows],
                    "jpeg": sum(1 for r in rows if r["jpg"] is not None and r["jpg"][:3] == b"\xff\xd8\xff"),
                    "status": [r["status"] for r in rows], "sha256": [r["sha256"] for r in rows],
                    "keys": [r["key"] for r in rows],
                }))
                """#, [out.path], in: work)
            let text = try #require(read, "pyarrow did not read the shard")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            // A txt list: url, then img2dataset's metadata, exif and sha256 (its defaults), then jpg.
            #expect(object["names"] as? [String] == ["url", "key", "status", "error_message", "width", "height",
                                                     "original_width", "original_height", "exif", "sha256", "jpg"])
            #expect((object["types"] as? [String])?.last == "binary")
            #expect(object["rows"] as? Int == 205 && object["row_groups"] as? Int == 3)
            let status = try #require(object["status"] as? [String])
            #expect(status.enumerated().allSatisfy { i, s in s == (i % 5 == 4 ? "failed_to_download" : "success") })
            let images = try #require(object["images"] as? [Any])
            #expect(images.enumerated().allSatisfy { i, image in (i % 5 == 4) == (image is NSNull) })
            #expect(object["jpeg"] as? Int == 164)
            let served = SHA256.hash(data: Data(png)).map { String(format: "%02x", $0) }.joined()
            let hashes = try #require(object["sha256"] as? [Any])
            #expect(hashes.enumerated().allSatisfy { i, h in i % 5 == 4 ? h is NSNull : (h as? String) == served })
            let keys = try #require(object["keys"] as? [String])
            #expect(keys == (0..<205).map { DatasetFixture.key(shard: 0, index: $0, perShard: 10_000) })
        }
    }
}
