import Foundation
import Parquet

/// One `parquet` shard, `NNNNN.parquet`, as img2dataset's `ParquetSampleWriter` writes it:
/// one row per sample, failures included, with the metadata columns of ``SampleRecord`` in
/// their order and the encoded image last, in a binary column named after the encode format
/// (`jpg`), null for a failed sample. Row groups of 100 rows go to disk as they fill (as
/// img2dataset's buffered writer flushes every 100), so memory holds at most 100 images.
///
/// The column types come from the shard's first row: an input column whose first value is
/// an integer is int64, a number double, a boolean boolean, anything else (a null
/// included) a string (img2dataset takes pyarrow's inference over the first 100 rows).
///
/// Written as `.NNNNN.parquet.partial`, renamed by ``finish()``; dropped unfinished, the
/// partial file is removed.
///
/// **Threads.** Blocking writes: the job's ``ShardOutput`` queue only.
final class ParquetShardWriter: ShardWriter {
    /// img2dataset's `BufferedParquetWriter` buffer.
    static let rowGroupRows = 100

    private let path: String
    private let imageExtension: String
    private var writer: ParquetFileWriter?
    private var kinds: [ParquetField.Kind] = []

    init(directory: URL, shardName: String, imageExtension: String) {
        path = directory.appendingPathComponent("\(shardName).parquet").path
        self.imageExtension = imageExtension
    }

    deinit {
        writer?.abandon()
    }

    /// Adds a row for any sample, successful (with its image) or not.
    func add(key: String, members: [ShardMember], record: SampleRecord) throws(ShardWriteError) {
        let image = members.first { $0.fileExtension == imageExtension }?.bytes
        do throws(ParquetError) {
            if writer == nil {
                kinds = ShardMetadataParquet.kinds(of: [record])
                let fields = zip(record.columns, kinds).map { ParquetField($0.name, $1) }
                    + [ParquetField(imageExtension, .binary)]
                writer = try ParquetFileWriter(path: path, fields: fields, compression: .snappy,
                                               rowGroupRows: Self.rowGroupRows)
            }
            var row = zip(record.columns, kinds).map { ShardMetadataParquet.cell($0.value, as: $1) }
            row.append(image.map { .binary(Array($0)) } ?? .null)
            try writer?.append(row)
        } catch {
            throw ShardWriteError("cannot write \(path): \(error)")
        }
    }

    func finish() throws(ShardWriteError) {
        guard let writer = writer.take() else { return }
        do throws(ParquetError) {
            try writer.finish()
        } catch {
            throw ShardWriteError("cannot write \(path): \(error)")
        }
    }
}
