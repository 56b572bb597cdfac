import Foundation
import Parquet
import Testing

/// The writer's files read back by pyarrow, DuckDB and pandas: types and values as written.
@Suite("Parquet writer: read back by pyarrow, DuckDB and pandas", .serialized, .timeLimit(.minutes(2)))
struct ParquetWriterTests {
    static let fields: [ParquetField] = [
        ParquetField("url", .string, optional: false),
        ParquetField("key", .string, optional: false),
        ParquetField("caption", .string),
        ParquetField("blob", .binary),
        ParquetField("status", .string),
        ParquetField("width", .int64),
        ParquetField("big", .int64, optional: false),
        ParquetField("small", .int32),
        ParquetField("ratio32", .float),
        ParquetField("ratio", .double),
        ParquetField("ok", .boolean),
        ParquetField("ok_required", .boolean, optional: false),
    ]

    static func rows(_ count: Int, captionLength: Int = 0) -> [[ParquetValue]] {
        let words = ["", "plain", "ünïcödé 漢字 🙂", "comma, \"quote\"\nnewline", "tab\there"]
        return (0..<count).map { i in
            let caption = words[i % words.count] + String(repeating: "x", count: captionLength)
            return [
                .string("https://example.com/\(i).jpg"),
                .string(String(format: "%09d", i)),
                i % 7 == 3 ? .null : .string(caption),
                i % 4 == 1 ? .null : .binary([UInt8(i % 256), 0, 255, 10]),
                .string(i % 3 == 0 ? "failed_to_download" : "success"),
                i % 5 == 2 ? .null : .int64(Int64(i * 37)),
                .int64(i % 2 == 0 ? Int64.max - Int64(i) : Int64.min + Int64(i)),
                i % 6 == 4 ? .null : .int32(Int32(i) - 1000),
                i % 8 == 5 ? .null : .float([1.5, -2.25, 0.1, 3.4e38][i % 4]),
                i % 9 == 6 ? .null : .double([0.1, -1e300, 2.5, Double.leastNonzeroMagnitude][i % 4]),
                i % 3 == 2 ? .null : .boolean(i % 2 == 0),
                .boolean(i % 5 < 2),
            ]
        }
    }

    /// Prints what each library reads: column types and values (binary as hex, NaN as null).
    static let readBack = #"""
        import json, math, sys, duckdb, pandas as pd, pyarrow.parquet as pq
        path = sys.argv[1]
        def cell(v):
            if isinstance(v, (bytes, bytearray)): return {"hex": bytes(v).hex()}
            if isinstance(v, float) and math.isnan(v): return None
            if hasattr(v, "item"): return cell(v.item())
            return v
        t = pq.read_table(path)
        out = {"pyarrow": {"types": {f.name: [str(f.type), f.nullable] for f in t.schema},
                           "columns": {n: [cell(v) for v in t.column(n).to_pylist()] for n in t.column_names}}}
        con = duckdb.connect()
        rel = con.execute(f"SELECT * FROM read_parquet('{path}')")
        rows = rel.fetchall()
        names = [d[0] for d in rel.description]
        types = {r[0]: r[1] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()}
        out["duckdb"] = {"types": types, "columns": {n: [cell(r[i]) for r in rows] for i, n in enumerate(names)}}
        df = pd.read_parquet(path)
        out["pandas"] = {"types": {n: str(df[n].dtype) for n in df.columns},
                         "columns": {n: [None if v is None or (isinstance(v, float) and math.isnan(v)) else cell(v)
                                         for v in df[n].astype(object).tolist()] for n in df.columns}}
        print(json.dumps(out))
        """#

    static let duckdbTypes = ["url": "VARCHAR", "key": "VARCHAR", "caption": "VARCHAR", "blob": "BLOB", "status": "VARCHAR",
                              "width": "BIGINT", "big": "BIGINT", "small": "INTEGER", "ratio32": "FLOAT", "ratio": "DOUBLE",
                              "ok": "BOOLEAN", "ok_required": "BOOLEAN"]

    func check(_ path: String, rows: [[ParquetValue]], in folder: TemporaryFolder) throws {
        let json = try #require(try PythonVenv.json(Self.readBack, [path], in: folder.url) as? [String: [String: Any]])
        let names = Self.fields.map(\.name)
        // pyarrow: the schema's types and nullability.
        let arrowTypes = json["pyarrow"]?["types"] as? [String: [Any]] ?? [:]
        for field in Self.fields {
            let expected = switch field.kind {
            case .string: "string"
            case .binary: "binary"
            case .int32: "int32"
            case .int64: "int64"
            case .float: "float"
            case .double: "double"
            case .boolean: "bool"
            }
            #expect(arrowTypes[field.name]?[0] as? String == expected, "pyarrow type of \(field.name)")
            #expect(arrowTypes[field.name]?[1] as? Bool == field.isOptional, "pyarrow nullability of \(field.name)")
        }
        #expect(json["duckdb"]?["types"] as? [String: String] == Self.duckdbTypes)
        let pandasTypes = json["pandas"]?["types"] as? [String: String] ?? [:]
        #expect(["str", "object", "string"].contains(pandasTypes["url"] ?? ""), "pandas url dtype \(pandasTypes["url"] ?? "?")")
        #expect(pandasTypes["big"] == "int64" && pandasTypes["ratio"] == "float64" && pandasTypes["ok_required"] == "bool",
                "pandas dtypes \(pandasTypes)")
        for library in ["pyarrow", "duckdb", "pandas"] {
            let columns = json[library]?["columns"] as? [String: [Any]] ?? [:]
            #expect(Set(columns.keys) == Set(names), "\(library) columns")
            var problems: [String] = []
            for (index, name) in names.enumerated() {
                let values = columns[name] ?? []
                guard values.count == rows.count else {
                    problems.append("\(name): \(values.count) rows of \(rows.count)")
                    continue
                }
                for (row, json) in values.enumerated() {
                    var value = rows[row][index]
                    // pandas turns an integer column with nulls into float64; the values stay small here.
                    if library == "pandas", case let .int32(v) = value { value = .double(Double(v)) }
                    if library == "pandas", case let .int64(v) = value, Self.fields[index].isOptional { value = .double(Double(v)) }
                    if let problem = Expected.mismatch(value, json), problems.count < 5 {
                        problems.append("\(name) row \(row): \(problem)")
                    }
                }
            }
            #expect(problems == [], "\(library)")
        }
    }

    @Test("Every type, nulls and unicode, uncompressed and snappy", arguments: [ParquetCompression.uncompressed, .snappy])
    func everyType(compression: ParquetCompression) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("00000.parquet")
        var writer = try ParquetFileWriter(path: path, fields: Self.fields, compression: compression)
        let rows = Self.rows(100)
        for row in rows { try writer.append(row) }
        try writer.finish()
        try check(path, rows: rows, in: folder)
        // And our reader agrees.
        let (groups, columns) = try Expected.readAll(path)
        #expect(groups == [100])
        for (index, field) in Self.fields.enumerated() {
            let expected = rows.map { $0[index] }
            #expect(columns[field.name] == expected, "\(field.name)")
        }
        // Only the finished file is left: no partial file beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".partial") } == [])
    }

    @Test("Row groups written as they fill: 250 rows in groups of 100 read back whole by every reader")
    func rowGroups() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("grouped.parquet")
        var writer = try ParquetFileWriter(path: path, fields: Self.fields, compression: .snappy, rowGroupRows: 100)
        let rows = Self.rows(250)
        for (index, row) in rows.enumerated() {
            try writer.append(row)
            // The first full group is on disk (in the partial file) before the file is finished.
            if index == 100 {
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [".grouped.parquet.partial"])
            }
        }
        try writer.finish()
        try check(path, rows: rows, in: folder)
        let (groups, columns) = try Expected.readAll(path)
        #expect(groups == [100, 100, 50])
        #expect(columns["url"] == rows.map { $0[0] })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("parquet") } == ["grouped.parquet"])
    }

    @Test("An abandoned writer leaves no file")
    func abandoned() throws {
        let folder = try TemporaryFolder()
        var writer = try ParquetFileWriter(path: folder.path("gone.parquet"), fields: Self.fields, rowGroupRows: 10)
        for row in Self.rows(25) { try writer.append(row) }
        writer.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [])
    }

    @Test("Several pages per column (over a MiB of captions)")
    func severalPages() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("big.parquet")
        var writer = try ParquetFileWriter(path: path, fields: Self.fields, compression: .snappy)
        let rows = Self.rows(3000, captionLength: 900)
        for row in rows { try writer.append(row) }
        try writer.finish()
        try check(path, rows: rows, in: folder)
    }

    @Test("No rows: a file every reader opens, with the schema")
    func empty() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("empty.parquet")
        try ParquetFileWriter(path: path, fields: Self.fields).finish()
        try check(path, rows: [], in: folder)
        #expect(try ParquetFileReader(path: path).rowCount == 0)
    }

    @Test("Rows that do not fit the schema are refused and leave the writer usable")
    func refusals() throws {
        let folder = try TemporaryFolder()
        let fields = [ParquetField("url", .string, optional: false), ParquetField("n", .int32)]
        #expect(throws: ParquetError.self) { try ParquetFileWriter(path: folder.path("a"), fields: []) }
        #expect(throws: ParquetError.self) { try ParquetFileWriter(path: folder.path("a"), fields: fields + fields) }
        #expect(throws: ParquetError.self) { try ParquetFileWriter(path: folder.path("a"), fields: fields, compression: .zstd) }
        var writer = try ParquetFileWriter(path: folder.path("a.parquet"), fields: fields)
        #expect(throws: ParquetError.self) { try writer.append([.null, .int32(1)]) }
        #expect(throws: ParquetError.self) { try writer.append([.string("x")]) }
        #expect(throws: ParquetError.self) { try writer.append([.string("x"), .int64(1)]) }
        try writer.append([.string("x"), .null])
        #expect(writer.rowCount == 1)
        try writer.finish()
        let (_, columns) = try Expected.readAll(folder.path("a.parquet"))
        #expect(columns["url"] == [.string("x")] && columns["n"] == [.null])
        // A folder that does not exist: an error naming the partial file, nothing left behind.
        let missing = try ParquetFileWriter(path: folder.path("no/such/dir/x.parquet"), fields: fields)
        #expect(throws: ParquetError.self) { try missing.finish() }
    }
}
