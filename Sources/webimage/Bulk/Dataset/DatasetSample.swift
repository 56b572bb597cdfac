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

    /// img2dataset's per-sample record, in its order: the additional columns, `caption`
    /// (with `--caption-col`), `url`, `key`, `status`, `error_message`, `width`, `height`,
    /// `original_width`, `original_height`, `sha256`. Sizes and hash are null for failures.
    var record: JSONValue {
        var members = row.additional
        if let caption = row.caption { members.append(("caption", caption)) }
        members.append(("url", row.url))
        members.append(("key", .string(key)))
        switch result {
        case .success(let output):
            members += [("status", .string("success")), ("error_message", .null),
                        ("width", .int(output.width)), ("height", .int(output.height)),
                        ("original_width", .int(output.originalWidth)), ("original_height", .int(output.originalHeight)),
                        ("sha256", .string(output.sha256))]
        case .failure(let failure):
            members += [("status", .string(failure.status)), ("error_message", .string(failure.message)),
                        ("width", .null), ("height", .null), ("original_width", .null), ("original_height", .null),
                        ("sha256", .null)]
        }
        return .object(members)
    }

    /// The sample's files for a shard, in img2dataset's order (sorted by extension):
    /// the image, `json` (indented like Python's `json.dumps(indent=4)`), and `txt` (the
    /// caption, with `--caption-col`). None for a failed sample.
    func members(format: EncodeFormat) -> [ShardMember] {
        guard case .success(let output) = result else { return [] }
        var members = [ShardMember(fileExtension: format.rawValue, bytes: output.bytes),
                       ShardMember(fileExtension: "json", bytes: Data(record.pretty().utf8))]
        if let caption = row.caption {
            members.append(ShardMember(fileExtension: "txt", bytes: Data(caption.captionText.utf8)))
        }
        return members.sorted { $0.fileExtension < $1.fileExtension }
    }
}
