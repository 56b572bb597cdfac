import Parquet

/// A shard's metadata as img2dataset writes it beside the shard: `NNNNN.parquet`, one row
/// per sample (failures included) in key order, with ``SampleRecord``'s columns in its order
/// (the input columns, `key`, `status`, `error_message`, the four sizes, `exif`, the hash)
/// and img2dataset's types: strings as UTF8 strings, the sizes int32, the input columns as
/// pandas infers them from the shard's values; everything nullable.
///
/// Made from the same records as `NNNNN.jsonl`, so both always agree.
///
/// **Threads.** Blocking file writes: ``ShardOutput``'s queue only.
enum ShardMetadataParquet {
    /// Writes `records` to `path` (atomically: `.NAME.partial`, then a rename).
    static func write(_ records: [SampleRecord], to path: String) throws(ShardWriteError) {
        // The columns come from the first record: every record of a job has the same ones.
        // A shard has at least one row (shards are cut from rows read), so there is one.
        let columns = zip((records.first?.columns ?? []).map(\.name), kinds(of: records)).map { ($0, $1) }
        do throws(ParquetError) {
            var writer = try ParquetFileWriter(path: path, fields: columns.map { ParquetField($0.0, $0.1) }, compression: .snappy)
            for record in records {
                try writer.append(columns.enumerated().map { index, column in
                    cell(index < record.columns.count ? record.columns[index].value : .null, as: column.1)
                })
            }
            try writer.finish()
        } catch {
            throw ShardWriteError("cannot write \(path): \(error)")
        }
    }

    /// The parquet type of each column of `records` (the first record's columns): the
    /// record's own for img2dataset's columns, inferred from the values for input columns.
    static func kinds(of records: [SampleRecord]) -> [ParquetField.Kind] {
        (records.first?.columns ?? []).enumerated().map { index, column in
            switch column.kind {
            case .string: .string
            case .int32: .int32
            case .input: kind(ofColumn: index, in: records)
            }
        }
    }

    /// An input column's type, as pandas would infer it from the given values: int64 when
    /// every value is an integer, double when every value is a number, boolean when every
    /// one is a boolean, else strings.
    private static func kind(ofColumn index: Int, in records: [SampleRecord]) -> ParquetField.Kind {
        var sawInt = false, sawDouble = false, sawBool = false, sawOther = false
        for record in records where index < record.columns.count {
            switch record.columns[index].value {
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

    /// `value` as a cell of a `kind` column (a value of another type is null, or its text in a string column).
    static func cell(_ value: JSONValue, as kind: ParquetField.Kind) -> ParquetValue {
        switch (value, kind) {
        case (.null, _): .null
        case (.int(let i), .int64): .int64(Int64(i))
        case (.int(let i), .int32): Int32(exactly: i).map(ParquetValue.int32) ?? .null
        case (.int(let i), .double): .double(Double(i))
        case (.double(let d), .double): .double(d)
        case (.bool(let b), .boolean): .boolean(b)
        case (.int, _), (.double, _), (.bool, _): kind == .string ? .string(value.captionText) : .null
        case (.string(let s), _): .string(s)
        case (.array, _), (.object, _): .string(value.compact())
        }
    }
}
