/// One row of a shard's metadata: img2dataset's columns in its order, each with the type
/// img2dataset gives it, so every metadata writer (the `NNNNN.jsonl` lines, each sample's
/// `KEY.json`, a TFRecord example, a parquet file) reads the same ordered list.
///
/// The order, as img2dataset's downloader builds its `meta` dict: the input columns read
/// (`--save-additional-columns` in their order, then `caption`, then `url`; a
/// `--verify-hash` column is read but not written), `key`, `status`, `error_message`,
/// `width`, `height`, `original_width`, `original_height`, then `exif` (with EXIF
/// extraction) and the hash column (`md5`, `sha256` or `sha512`; none with
/// `compute_hash None`).
struct SampleRecord: Sendable {
    /// The type of a column, as img2dataset's parquet schema has it.
    enum Kind: Sendable, Equatable {
        /// Copied from the input list: the type is the input's.
        case input
        /// A string, or null.
        case string
        /// A 32-bit integer, or null.
        case int32
    }

    struct Column: Sendable {
        var name: String
        var kind: Kind
        var value: JSONValue
    }

    var columns: [Column]

    /// The record as a JSON object, in column order.
    var json: JSONValue { .object(columns.map { ($0.name, $0.value) }) }

    /// The value of column `name`, if it has one.
    subscript(name: String) -> JSONValue? { columns.first { $0.name == name }?.value }
}
