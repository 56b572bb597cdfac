import Parquet

/// A shard's metadata as img2dataset writes it beside the shard: `NNNNN.parquet`, one row
/// per sample (failures included) in key order, with its columns in its order: `url`, `key`,
/// `caption` (with `--caption-col`), the additional columns, `status`, `error_message`,
/// `width`, `height`, `original_width`, `original_height`, `exif`, then the hash column.
/// Strings are UTF8 strings, sizes int64, everything nullable, as pyarrow infers them there.
///
/// Made from the same records as `NNNNN.jsonl` (``DatasetSample/record``), so both always agree.
///
/// **Threads.** Blocking file writes: ``ShardOutput``'s queue only.
enum ShardMetadataParquet {
    private static let sizes = ["width", "height", "original_width", "original_height"]
    private static let hashes = ["md5", "sha256", "sha512"]
    private static let known: Set<String> = Set(["url", "key", "caption", "status", "error_message", "exif"] + sizes + hashes)

    /// Writes `records` (JSON objects) to `path` (atomically: `.NAME.partial`, then a rename).
    static func write(_ records: [JSONValue], to path: String) throws(ShardWriteError) {
        let rows = records.map { record -> [(String, JSONValue)] in
            if case .object(let members) = record { return members }
            return []
        }
        // The columns come from the first record: every record of a job has the same keys.
        let names = rows.first.map { $0.map(\.0) } ?? []
        let additional = names.filter { !known.contains($0) }
        let hashColumns = names.contains(where: hashes.contains) ? hashes.filter(names.contains) : (rows.isEmpty ? ["sha256"] : [])
        var columns: [(String, ParquetField.Kind)] = [("url", .string), ("key", .string)]
        if names.contains("caption") { columns.append(("caption", .string)) }
        for name in additional { columns.append((name, kind(of: name, in: rows))) }
        columns += [("status", .string), ("error_message", .string)] + sizes.map { ($0, .int64) }
        columns.append(("exif", .string))
        columns += hashColumns.map { ($0, .string) }

        do throws(ParquetError) {
            var writer = try ParquetFileWriter(path: path, fields: columns.map { ParquetField($0.0, $0.1) }, compression: .snappy)
            for row in rows {
                try writer.append(columns.map { name, kind in
                    cell(row.first { $0.0 == name }?.1 ?? .null, as: kind)
                })
            }
            try writer.finish()
        } catch {
            throw ShardWriteError("cannot write \(path): \(error)")
        }
    }

    /// An additional column's type, as pandas would infer it from the shard's values:
    /// int64 when every value is an integer, double when every value is a number, boolean
    /// when every one is a boolean, else strings.
    private static func kind(of name: String, in rows: [[(String, JSONValue)]]) -> ParquetField.Kind {
        var sawInt = false, sawDouble = false, sawBool = false, sawOther = false
        for row in rows {
            switch row.first(where: { $0.0 == name })?.1 ?? .null {
            case .null: break
            case .int: sawInt = true
            case .double: sawDouble = true
            case .bool: sawBool = true
            default: sawOther = true
            }
        }
        if sawOther || (sawBool && (sawInt || sawDouble)) { return .string }
        if sawBool { return .boolean }
        if sawDouble { return .double }
        if sawInt { return .int64 }
        return .string
    }

    private static func cell(_ value: JSONValue, as kind: ParquetField.Kind) -> ParquetValue {
        switch (value, kind) {
        case (.null, _): .null
        case (.int(let i), .int64): .int64(Int64(i))
        case (.int(let i), .double): .double(Double(i))
        case (.double(let d), .double): .double(d)
        case (.bool(let b), .boolean): .boolean(b)
        case (.int, _), (.double, _), (.bool, _): kind == .string ? .string(value.captionText) : .null
        case (.string(let s), _): .string(s)
        case (.array, _), (.object, _): .string(value.compact())
        }
    }
}
