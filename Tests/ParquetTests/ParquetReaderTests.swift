import Foundation
import Parquet
import Testing

/// The reader against files that pyarrow and DuckDB write, the expected values written by
/// Python beside each file (never read back through our reader).
@Suite("Parquet reader: pyarrow and DuckDB files", .serialized, .timeLimit(.minutes(2)))
struct ParquetReaderTests {
    /// Writes one table of every type (nulls, unicode, empty strings, binary) in each given
    /// form; prints `{file: {"row_groups", "columns", "types"}}`.
    static let pyarrowMatrix = #"""
        import json, sys, pyarrow as pa, pyarrow.parquet as pq
        codec = sys.argv[1]
        n = 50
        def pick(i, values): return values[i % len(values)]
        words = ["plain", "", "ünïcödé 漢字 🙂", "a,b \"quoted\"", "x" * 300]
        table = pa.table({
            "url": pa.array([None if i % 7 == 3 else f"https://example.com/{i}/{pick(i, words)}.jpg" for i in range(n)], pa.string()),
            "caption": pa.array([None if i % 5 == 0 else pick(i, words) for i in range(n)], pa.string()),
            "required_text": pa.array([f"row {i} {pick(i, words)}" for i in range(n)], pa.string()),
            "blob": pa.array([None if i % 4 == 1 else bytes([i % 256, 0, 255]) * (i % 3) for i in range(n)], pa.binary()),
            "i32": pa.array([None if i % 6 == 2 else (i - 25) * 85899345 for i in range(n)], pa.int32()),
            "i64": pa.array([None if i % 9 == 4 else (i - 25) * 368934881474191032 for i in range(n)], pa.int64()),
            "f32": pa.array([None if i % 8 == 5 else pick(i, [1.5, -2.25, 0.1, 3.4e38, 0.0]) for i in range(n)], pa.float32()),
            "f64": pa.array([None if i % 10 == 6 else pick(i, [0.1, -1e300, 2.5, 5e-324, 0.0]) for i in range(n)], pa.float64()),
            "flag": pa.array([None if i % 3 == 2 else i % 2 == 0 for i in range(n)], pa.bool_()),
            "flag_required": pa.array([i % 5 < 2 for i in range(n)], pa.bool_()),
            "small_required": pa.array(list(range(n)), pa.int64()),
        })
        table = table.cast(pa.schema([f.with_nullable(not f.name.endswith("_required") and f.name != "required_text") for f in table.schema]))
        def cell(v):
            return {"hex": v.hex()} if isinstance(v, bytes) else v
        expected = {name: [cell(v) for v in table.column(name).to_pylist()] for name in table.column_names}
        types = {f.name: [str(f.type), f.nullable] for f in table.schema}
        out = {}
        delta = {"url": "DELTA_BYTE_ARRAY", "required_text": "DELTA_BYTE_ARRAY", "blob": "DELTA_BYTE_ARRAY",
                 "caption": "DELTA_LENGTH_BYTE_ARRAY", "i32": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED",
                 "small_required": "DELTA_BINARY_PACKED", "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT"}
        forms = [(d, v, None, None) for d in (False, True) for v in ("1.0", "2.0")] + [(True, "1.0", 64, None)] + \
                [(False, v, None, delta) for v in ("1.0", "2.0")]
        for dictionary, version, dict_limit, encodings in forms:
            name = f"{codec}-dict{int(dictionary)}-v{version}" + ("-fallback" if dict_limit else "") + \
                   ("-delta" if encodings else "") + ".parquet"
            options = dict(compression=codec, use_dictionary=dictionary, data_page_version=version,
                           row_group_size=16, data_page_size=128, write_statistics=False)
            if dict_limit: options["dictionary_pagesize_limit"] = dict_limit
            if encodings: options["column_encoding"] = encodings
            pq.write_table(table, name, **options)
            meta = pq.ParquetFile(name).metadata
            out[name] = {"row_groups": [meta.row_group(i).num_rows for i in range(meta.num_row_groups)],
                         "columns": expected, "types": types}
        print(json.dumps(out))
        """#

    @Test("pyarrow: every type, nulls and unicode; PLAIN, dictionary and its fallback, DELTA and BYTE_STREAM_SPLIT encodings; pages v1 and v2; several row groups",
          arguments: ["none", "snappy", "gzip", "zstd"])
    func pyarrowFiles(codec: String) throws {
        let folder = try TemporaryFolder()
        let files = try #require(try PythonVenv.json(Self.pyarrowMatrix, [codec], in: folder.url) as? [String: [String: Any]])
        #expect(files.count == 7)
        for (name, json) in files.sorted(by: { $0.key < $1.key }) {
            let path = folder.path(name)
            let problems = try Expected.compare(path, with: json)
            #expect(problems == [], "\(name)")
            let reader = try ParquetFileReader(path: path)
            #expect(reader.rowCount == 50, "\(name)")
            let types = json["types"] as? [String: [Any]] ?? [:]
            #expect(reader.columns.map(\.name) == ["url", "caption", "required_text", "blob", "i32", "i64", "f32", "f64",
                                                  "flag", "flag_required", "small_required"])
            for column in reader.columns {
                let type = types[column.name]
                let problem = Expected.typeMismatch(column, arrowType: type?[0] as? String ?? "?", nullable: type?[1] as? Bool ?? false)
                #expect(problem == nil, "\(name): \(problem ?? "")")
            }
        }
    }

    /// DuckDB's writer: its own page layout, row-group sizes and dictionary choices.
    static let duckdbFile = #"""
        import json, sys, duckdb
        codec, name = sys.argv[1], sys.argv[2]
        con = duckdb.connect()
        con.execute("""CREATE TABLE t AS SELECT
            'https://example.org/img/' || i || '.jpg' AS url,
            CASE WHEN i % 4 = 0 THEN NULL ELSE 'cap ' || (i % 13) || ' é✓' END AS caption,
            CAST(i * 1000003 AS BIGINT) AS big,
            CASE WHEN i % 3 = 0 THEN NULL ELSE CAST(i - 500 AS INTEGER) END AS small,
            CAST(i AS DOUBLE) / 8 AS ratio,
            CAST(i AS FLOAT) / 4 AS ratio32,
            i % 2 = 0 AS even,
            CASE WHEN i % 5 = 0 THEN NULL ELSE encode('b' || i) END AS blob
            FROM range(3000) r(i)""")
        version = ", PARQUET_VERSION V2" if codec.endswith("-v2") else ""
        codec = codec.removesuffix("-v2")
        con.execute(f"COPY t TO '{name}' (FORMAT PARQUET, COMPRESSION {codec}, ROW_GROUP_SIZE 1024{version})")
        rows = con.execute(f"SELECT * FROM read_parquet('{name}')").fetchall()
        names = [d[0] for d in con.description]
        def cell(v): return {"hex": bytes(v).hex()} if isinstance(v, (bytes, bytearray)) else v
        groups = [r[0] for r in con.execute(f"SELECT row_group_num_rows FROM parquet_metadata('{name}') GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id").fetchall()]
        print(json.dumps({"row_groups": groups, "columns": {n: [cell(r[i]) for r in rows] for i, n in enumerate(names)}}))
        """#

    @Test("DuckDB: COPY … TO … (FORMAT PARQUET, COMPRESSION …), and PARQUET_VERSION V2 (DELTA encodings)",
          arguments: ["uncompressed", "snappy", "gzip", "zstd", "zstd-v2", "uncompressed-v2"])
    func duckdbFiles(codec: String) throws {
        let folder = try TemporaryFolder()
        let json = try #require(try PythonVenv.json(Self.duckdbFile, [codec, "duck.parquet"], in: folder.url) as? [String: Any])
        #expect(try Expected.compare(folder.path("duck.parquet"), with: json) == [])
        let reader = try ParquetFileReader(path: folder.path("duck.parquet"))
        #expect(reader.rowCount == 3000)
        #expect(reader.rowGroupCount >= 2)
    }

    static let emptyFiles = #"""
        import json, pyarrow as pa, pyarrow.parquet as pq
        schema = pa.schema([("url", pa.string()), ("n", pa.int64())])
        pq.write_table(schema.empty_table(), "empty.parquet")
        with pq.ParquetWriter("gaps.parquet", schema, compression="snappy") as w:
            w.write_table(pa.table({"url": ["a", None], "n": [1, 2]}, schema=schema))
            w.write_table(schema.empty_table())
            w.write_table(pa.table({"url": ["ü"], "n": [None]}, schema=schema))
        out = {}
        for name in ("empty.parquet", "gaps.parquet"):
            meta = pq.ParquetFile(name).metadata
            t = pq.read_table(name)
            out[name] = {"row_groups": [meta.row_group(i).num_rows for i in range(meta.num_row_groups)],
                         "columns": {c: t.column(c).to_pylist() for c in t.column_names}}
        print(json.dumps(out))
        """#

    @Test("An empty file and an empty row group between two others")
    func emptyFileAndRowGroup() throws {
        let folder = try TemporaryFolder()
        let files = try #require(try PythonVenv.json(Self.emptyFiles, in: folder.url) as? [String: [String: Any]])
        for (name, json) in files {
            #expect(try Expected.compare(folder.path(name), with: json) == [], "\(name)")
        }
        let gaps = try ParquetFileReader(path: folder.path("gaps.parquet"))
        #expect(gaps.rowCount == 3)
        #expect((try ParquetFileReader(path: folder.path("empty.parquet"))).rowCount == 0)
    }

    /// A million LAION-like rows: unique URLs (dictionary given up, PLAIN) and repeating
    /// captions (dictionary), snappy, pyarrow's default row groups; Python prints aggregates and samples.
    static let millionRows = #"""
        import json, random, pyarrow as pa, pyarrow.parquet as pq
        n = 1_000_000
        urls = [f"https://cdn{i % 17}.example.com/images/{i * 7919 % 1000003}/{i}.jpg" for i in range(n)]
        captions = [None if i % 101 == 0 else f"a photo of thing {i % 977} ✓" for i in range(n)]
        pq.write_table(pa.table({"url": urls, "caption": captions, "similarity": [i / n for i in range(n)]}),
                       "million.parquet", compression="snappy", row_group_size=300_000)
        random.seed(7)
        rows = sorted(random.sample(range(n), 500))
        print(json.dumps({"rows": n, "url_bytes": sum(len(u.encode()) for u in urls),
                          "caption_bytes": sum(len(c.encode()) for c in captions if c is not None),
                          "caption_nulls": sum(c is None for c in captions),
                          "samples": [[r, urls[r], captions[r]] for r in rows]}))
        """#

    @Test("A million rows: counts, byte totals, nulls and 500 sampled rows", .timeLimit(.minutes(1)))
    func millionRows() throws {
        let folder = try TemporaryFolder()
        let json = try #require(try PythonVenv.json(Self.millionRows, in: folder.url) as? [String: Any])
        let reader = try ParquetFileReader(path: folder.path("million.parquet"))
        #expect(reader.rowCount == json["rows"] as? Int)
        #expect(reader.rowGroupCount == 4)
        var urlBytes = 0, captionBytes = 0, nulls = 0, rowBase = 0
        var samples = (json["samples"] as? [[Any]] ?? [])[...]
        for index in 0..<reader.rowGroupCount {
            let group = try reader.readRowGroup(index, columns: ["url", "caption"])
            let urls = group.columns[0], captions = group.columns[1]
            for row in 0..<group.rowCount {
                urlBytes += urls.withBytes(at: row) { $0.count } ?? 0
                if let n = captions.withBytes(at: row, { $0.count }) { captionBytes += n } else { nulls += 1 }
            }
            while let sample = samples.first, let row = sample[0] as? Int, row < rowBase + group.rowCount {
                #expect(urls.string(at: row - rowBase) == sample[1] as? String, "row \(row)")
                #expect(captions.string(at: row - rowBase) == sample[2] as? String, "row \(row)")
                samples.removeFirst()
            }
            rowBase += group.rowCount
        }
        #expect(samples.isEmpty)
        #expect(rowBase == json["rows"] as? Int)
        #expect(urlBytes == json["url_bytes"] as? Int)
        #expect(captionBytes == json["caption_bytes"] as? Int)
        #expect(nulls == json["caption_nulls"] as? Int)
    }

    @Test("Only the projected columns are read; an unknown one is a clear error")
    func projection() throws {
        let folder = try TemporaryFolder()
        _ = try PythonVenv.run(#"""
            import pyarrow as pa, pyarrow.parquet as pq
            pq.write_table(pa.table({"a": [1, 2], "url": ["x", "y"], "b": [1.0, 2.0]}), "p.parquet")
            """#, in: folder.url)
        let reader = try ParquetFileReader(path: folder.path("p.parquet"))
        let group = try reader.readRowGroup(0, columns: ["url"])
        #expect(group.columns.map(\.descriptor.name) == ["url"])
        #expect(group.column("url")?.string(at: 1) == "y")
        #expect(throws: ParquetError.columnNotFound("URL")) { try reader.readRowGroup(0, columns: ["URL"]) }
    }
}
