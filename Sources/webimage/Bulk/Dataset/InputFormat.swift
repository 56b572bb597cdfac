/// `--input-format`: how the list is read (img2dataset's names). Each may end in `.gz`;
/// any file is read through zlib, so a plain file named with `.gz` formats works too.
enum InputFormat: String, Sendable, CaseIterable {
    /// One URL per line; blank lines are skipped and do not take a key.
    case txt
    /// RFC 4180 comma-separated values with a header row.
    case csv
    /// The same with tabs.
    case tsv
    /// One JSON array of objects (records), read element by element.
    case json
    /// One JSON object per line; blank lines are skipped.
    case jsonl
    /// Apache Parquet, read row group by row group with only the job's columns (``ParquetRowParser``).
    case parquet

    /// Parses `txt`, `csv.gz`, … (the `.gz` suffix changes nothing: zlib detects gzip).
    init?(argument: String) {
        let name = argument.lowercased()
        self.init(rawValue: name.hasSuffix(".gz") ? String(name.dropLast(3)) : name)
    }

    /// The accepted values, for messages.
    static let names = "txt, csv, tsv, json, jsonl (each also .gz), parquet"
}

/// The columns a job reads: `--url-col`, `--caption-col`, `--save-additional-columns`.
struct InputColumns: Sendable {
    var url = "url"
    var caption: String?
    var additional: [String] = []
    /// img2dataset's `bbox_col`: boxes to blur (also among ``additional``, as there).
    var boxes: String?
    /// The column of img2dataset's `verify_hash`: read, compared, not written.
    var verifyHash: String?

    /// The names img2dataset keeps for itself; an additional column may not use one.
    static let reserved: Set<String> = [
        "key", "caption", "url", "width", "height", "original_width", "original_height", "status",
        "error_message", "exif", "md5", "sha256", "sha512",
    ]
}

/// One row of the list: the URL as read (null, or a number, in JSON inputs), the caption
/// when `--caption-col` names one, and the additional columns in `--save-additional-columns` order.
struct InputRow: Sendable {
    var url: JSONValue
    var caption: JSONValue?
    var additional: [(String, JSONValue)]
    /// The `bbox_col` value, when a box column is named.
    var boxes: JSONValue? = nil
    /// The `verify_hash` column's value, when one is named.
    var expectedHash: JSONValue? = nil
    /// Whether the caption is a column of the list (not for `txt`, whose one column is the
    /// URL: img2dataset then writes an empty `KEY.txt` and no `caption` field).
    var isCaptionAColumn = true

    /// The URL text to download, or `nil` when the value is not a string.
    var urlText: String? {
        if case .string(let s) = url { return s }
        return nil
    }
}
