import Foundation

/// One `tfrecord` shard, `NNNNN.tfrecord`, as img2dataset's `TFRecordSampleWriter` writes it:
/// one `tf.train.Example` (``TFExample``) per successful sample, with the features `key`,
/// the image under the encode format's name (`jpg`), `txt` (with a caption column) and every
/// metadata column by name (``TFExample/feature(_:)``). Failed samples are only in the
/// shard's metadata, as there.
///
/// Each record is framed as TFRecord files are: the data's length (8 bytes, little-endian),
/// the masked CRC-32C of those 8 bytes, the data, the masked CRC-32C of the data (``CRC32C``).
/// Written as `.NNNNN.tfrecord.partial`, renamed by ``finish()``.
///
/// **Threads.** Blocking writes: the job's ``ShardOutput`` queue only.
final class TFRecordShardWriter: ShardWriter {
    private let handle: FileHandle
    private let partial: URL
    private let final: URL
    private let imageExtension: String
    private var isOpen = true

    init(directory: URL, shardName: String, imageExtension: String) throws(ShardWriteError) {
        partial = directory.appendingPathComponent(".\(shardName).tfrecord.partial")
        final = directory.appendingPathComponent("\(shardName).tfrecord")
        self.imageExtension = imageExtension
        guard FileManager.default.createFile(atPath: partial.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: partial.path) else {
            throw ShardWriteError("cannot write \(partial.path)")
        }
        self.handle = handle
    }

    deinit {
        if isOpen {
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
        }
    }

    func add(key: String, members: [ShardMember], record: SampleRecord) throws(ShardWriteError) {
        guard let image = members.first(where: { $0.fileExtension == imageExtension }) else { return }
        var example = TFExample()
        example.set("key", .bytes([Array(key.utf8)]))
        example.set(imageExtension, .bytes([Array(image.bytes)]))
        if let caption = members.first(where: { $0.fileExtension == "txt" }) {
            example.set("txt", .bytes([Array(caption.bytes)]))
        }
        for column in record.columns { example.set(column.name, TFExample.feature(column.value)) }
        let data = example.serialized
        var frame: [UInt8] = []
        frame.reserveCapacity(data.count + 16)
        let length = withUnsafeBytes(of: UInt64(data.count).littleEndian) { Array($0) }
        frame += length
        withUnsafeBytes(of: CRC32C.masked(length).littleEndian) { frame += $0 }
        frame += data
        withUnsafeBytes(of: CRC32C.masked(data).littleEndian) { frame += $0 }
        do {
            try handle.write(contentsOf: frame)
        } catch {
            throw ShardWriteError("cannot write \(partial.path): \(error.localizedDescription)")
        }
    }

    func finish() throws(ShardWriteError) {
        isOpen = false
        do {
            try handle.close()
        } catch {
            throw ShardWriteError("cannot finish \(partial.path): \(error.localizedDescription)")
        }
        try ShardFiles.move(partial, to: final)
    }
}
