import Dispatch
import Foundation
import Synchronization

/// Writes a dataset job's shards, in the order the job hands samples over, on one serial
/// queue of its own (tar and file writes block; they never run on the cooperative pool).
///
/// Per shard, in this order: the samples (tar members or files), then at the end the
/// shard's tar or folder is renamed into place, its metadata `NNNNN.parquet`
/// (``ShardMetadataParquet``: one row per sample, failures included, in key order) and, with
/// ``writesJSONLines``, `NNNNN.jsonl` (the same rows) are written and renamed, and last its
/// `NNNNN_stats.json`: a shard with a stats file is complete, which is what `--resume`
/// and img2dataset's own resume look for.
///
/// With an ``S3ShardPublisher`` (an `s3://` output folder), `directory` is a local spool
/// and each finished shard is handed to the publisher, which uploads its files (stats
/// last) and removes them; ``drain()`` also waits for that upload, and its failures are
/// among ``errors``.
///
/// **Bounds.** ``pendingBytes`` counts the encoded bytes handed over and not written yet;
/// the job stops starting samples while it is over its budget. A shard's metadata records
/// are held until the shard ends (a few hundred bytes per row).
final class ShardOutput: Sendable {
    /// img2dataset's `output_format`s written here.
    enum Layout: String, Sendable {
        case files, webdataset
        /// `NNNNN.tfrecord` (``TFRecordShardWriter``).
        case tfrecord
        /// `NNNNN.parquet` with the image in a binary column (``ParquetShardWriter``).
        case parquet
        /// Nothing but `NNNNN_stats.json`, as img2dataset's dummy writer.
        case dummy
    }

    private final class OpenShards: @unchecked Sendable {  // touched only on `queue`
        var writers: [Int: any ShardWriter] = [:]
        var records: [Int: [SampleRecord]] = [:]
        var failed: Set<Int> = []
    }

    let directory: URL
    let layout: Layout
    let naming: ShardNaming
    /// Whether `NNNNN.jsonl` is written beside `NNNNN.parquet`.
    let writesJSONLines: Bool
    /// The image's extension (the encode format), for TFRecord's feature name.
    let imageExtension: String
    private let queue = DispatchQueue(label: "webimage.bulk.shards")
    private let open = OpenShards()
    private let pending = Atomic<Int>(0)
    private let problems = Mutex<[String]>([])
    private let publisher: S3ShardPublisher?

    /// With `s3`, the client of an `s3://` output folder, `directory` is the local spool and
    /// each finished shard is uploaded (a failed upload is among ``errors``).
    init(directory: URL, layout: Layout, naming: ShardNaming, writesJSONLines: Bool = true, imageExtension: String = "jpg",
         s3 client: S3ObjectClient? = nil) {
        self.directory = directory
        self.layout = layout
        self.naming = naming
        self.writesJSONLines = writesJSONLines
        self.imageExtension = imageExtension
        publisher = client.map { S3ShardPublisher(client: $0, spool: directory) }
    }

    /// Encoded bytes handed over and not written yet.
    var pendingBytes: Int { pending.load(ordering: .relaxed) }

    /// Write errors so far (each shard's first).
    var errors: [String] { problems.withLock { $0 } + (publisher?.errors ?? []) }

    /// Queues one sample of `shard`: its files (none for a failed sample) and its metadata record.
    func add(shard: Int, key: String, members: [ShardMember], record: SampleRecord) {
        guard layout != .dummy else { return }
        let bytes = members.reduce(0) { $0 + $1.bytes.count }
        pending.add(bytes, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(bytes, ordering: .relaxed) }
            open.records[shard, default: []].append(record)
            // A parquet shard has a row for every sample; the other layouts files for successes only.
            guard !open.failed.contains(shard), !members.isEmpty || layout == .parquet else { return }
            do throws(ShardWriteError) {
                try writer(for: shard).add(key: key, members: members, record: record)
            } catch {
                fail(shard, error)
            }
        }
    }

    /// Queues the end of `shard`: its tar or folder, metadata and, last, `stats` (made
    /// when the writes are done, so its end time is theirs).
    func finish(shard: Int, stats: @escaping @Sendable () -> ShardStats) {
        queue.async { [self] in
            let name = naming.shardName(shard)
            let records = open.records.removeValue(forKey: shard) ?? []
            defer { open.writers[shard] = nil }
            guard !open.failed.contains(shard) else { return }
            do throws(ShardWriteError) {
                if layout != .dummy {
                    // A shard whose samples all failed still gets its (empty) tar or folder.
                    try writer(for: shard).finish()
                    if writesJSONLines {
                        // The lines are made from the same records as the parquet file.
                        let lines = Data(records.map { $0.json.compact() + "\n" }.joined().utf8)
                        let metadata = directory.appendingPathComponent(".\(name).jsonl.partial")
                        try ShardFiles.write(lines, to: metadata)
                        try ShardFiles.move(metadata, to: directory.appendingPathComponent("\(name).jsonl"))
                    }
                    // With the parquet layout the shard itself is NNNNN.parquet, metadata included.
                    if layout != .parquet {
                        try ShardMetadataParquet.write(records, to: directory.appendingPathComponent("\(name).parquet").path)
                    }
                }
                let statsPartial = directory.appendingPathComponent(".\(name)_stats.json.partial")
                try ShardFiles.write(Data(stats().json.utf8), to: statsPartial)
                try ShardFiles.move(statsPartial, to: directory.appendingPathComponent("\(name)_stats.json"))
                publisher?.publish(shardName: name)
            } catch {
                fail(shard, error)
            }
        }
    }

    /// Waits until everything queued so far is written (and uploaded, to S3).
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [publisher] in
                publisher?.waitForUploads()
                continuation.resume()
            }
        }
    }

    /// Drops shards that were started and not finished (the list could not be read to
    /// their end): their partial files are removed, nothing is renamed into place.
    func abandonUnfinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                open.writers.removeAll()
                open.records.removeAll()
                continuation.resume()
            }
        }
    }

    /// On `queue`: the shard's writer, opened on its first use.
    private func writer(for shard: Int) throws(ShardWriteError) -> any ShardWriter {
        if let writer = open.writers[shard] { return writer }
        let name = naming.shardName(shard)
        let writer: any ShardWriter
        switch layout {
        case .webdataset: writer = try TarShardWriter(directory: directory, shardName: name)
        case .files: writer = try FolderShardWriter(directory: directory, shardName: name)
        case .tfrecord: writer = try TFRecordShardWriter(directory: directory, shardName: name, imageExtension: imageExtension)
        case .parquet: writer = ParquetShardWriter(directory: directory, shardName: name, imageExtension: imageExtension)
        case .dummy: throw ShardWriteError("the dummy output format has no shard writer")
        }
        open.writers[shard] = writer
        return writer
    }

    /// On `queue`: gives up on `shard` (its partial files go with its writer).
    private func fail(_ shard: Int, _ error: ShardWriteError) {
        open.failed.insert(shard)
        open.writers[shard] = nil
        open.records[shard] = nil
        problems.withLock { $0.append(error.description) }
    }
}
