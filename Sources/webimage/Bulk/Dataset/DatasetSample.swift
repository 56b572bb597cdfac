import Foundation

/// One finished row of a dataset job: where it goes and how it ended.
struct DatasetSample: Sendable {
    /// Start order in the job (the order samples are written in).
    var sequence: Int
    var shard: Int
    var key: String
    var row: InputRow
    var result: Result<SampleProcessor.Output, SampleFailure>

    var failure: SampleFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    /// The encoded image's size, for the job's byte budget.
    var byteCount: Int {
        if case .success(let output) = result { return output.bytes.count }
        return 0
    }

    /// img2dataset's per-sample record (``SampleRecord``): the additional columns,
    /// `caption` (with `--caption-col`), `url`, `key`, `status`, `error_message`, `width`,
    /// `height`, `original_width`, `original_height`, then `exif` and the hash column when
    /// `columns` asks for them. Sizes, EXIF and hash are null for failures.
    func record(_ columns: RecordColumns) -> SampleRecord {
        var list = row.additional.map { SampleRecord.Column(name: $0.0, kind: .input, value: $0.1) }
        if let caption = row.caption, row.isCaptionAColumn {
            list.append(SampleRecord.Column(name: "caption", kind: .input, value: caption))
        }
        list.append(SampleRecord.Column(name: "url", kind: .input, value: row.url))
        func add(_ name: String, _ kind: SampleRecord.Kind, _ value: JSONValue) {
            list.append(SampleRecord.Column(name: name, kind: kind, value: value))
        }
        func number(_ n: Int?) -> JSONValue { n.map(JSONValue.int) ?? .null }
        func text(_ t: String?) -> JSONValue { t.map(JSONValue.string) ?? .null }
        add("key", .string, .string(key))
        let output: SampleProcessor.Output?
        switch result {
        case .success(let made):
            output = made
            add("status", .string, .string("success"))
            add("error_message", .string, .null)
        case .failure(let failure):
            output = nil
            add("status", .string, .string(failure.status))
            add("error_message", .string, .string(failure.message))
        }
        add("width", .int32, number(output?.width))
        add("height", .int32, number(output?.height))
        add("original_width", .int32, number(output?.originalWidth))
        add("original_height", .int32, number(output?.originalHeight))
        if columns.exif { add("exif", .string, text(output?.exif)) }
        if let hash = columns.hash { add(hash.rawValue, .string, text(output?.hash)) }
        return SampleRecord(columns: list)
    }

    /// The sample's files for a shard, in img2dataset's order (sorted by extension):
    /// the image, `json` (indented like Python's `json.dumps(indent=4)`), and `txt` (the
    /// caption, with `--caption-col`). None for a failed sample.
    func members(format: EncodeFormat, record: SampleRecord) -> [ShardMember] {
        guard case .success(let output) = result else { return [] }
        var members = [ShardMember(fileExtension: format.rawValue, bytes: output.bytes),
                       ShardMember(fileExtension: "json", bytes: Data(record.json.pretty().utf8))]
        if let caption = row.caption {
            members.append(ShardMember(fileExtension: "txt", bytes: Data(caption.captionText.utf8)))
        }
        return members.sorted { $0.fileExtension < $1.fileExtension }
    }
}
