import CArchive
import Foundation

/// One webdataset shard, `NNNNN.tar`, written through libarchive: POSIX ustar members
/// `KEY.ext`, mode 0444, owner 0:0, modification time 0 (so equal inputs give equal bytes
/// on every run and every machine, which img2dataset's wall-clock times do not), in
/// 10,240-byte records as tar writes them.
///
/// The archive is written as `.NNNNN.tar.partial` and renamed to `NNNNN.tar` by
/// ``finish()``, so a reader never sees half a shard and a killed job leaves only the
/// hidden partial name, which the next run of that shard replaces.
///
/// **Threads.** Blocking writes: the job's ``ShardOutput`` queue only.
final class TarShardWriter: ShardWriter {
    private let archive: OpaquePointer
    private let entry: OpaquePointer
    private let partial: URL
    private let final: URL
    private var isOpen = true

    init(directory: URL, shardName: String) throws(ShardWriteError) {
        partial = directory.appendingPathComponent(".\(shardName).tar.partial")
        final = directory.appendingPathComponent("\(shardName).tar")
        guard let archive = archive_write_new(), let entry = archive_entry_new() else {
            throw ShardWriteError("libarchive could not start a tar for \(final.path)")
        }
        self.archive = archive
        self.entry = entry
        guard archive_write_set_format_ustar(archive) == ARCHIVE_OK,
              archive_write_add_filter_none(archive) == ARCHIVE_OK,
              archive_write_open_filename(archive, partial.path) == ARCHIVE_OK else {
            let message = Self.errorText(archive)
            // deinit runs for a class whose init throws once every property is set: it
            // frees the entry; the archive is freed here, and the path is not ours to remove.
            archive_write_free(archive)
            isOpen = false
            throw ShardWriteError("cannot write \(partial.path): \(message)")
        }
    }

    deinit {
        if isOpen {
            archive_write_free(archive)
            try? FileManager.default.removeItem(at: partial)
        }
        archive_entry_free(entry)
    }

    func add(key: String, members: [ShardMember], record: SampleRecord) throws(ShardWriteError) {
        for member in members {
            archive_entry_clear(entry)
            archive_entry_set_pathname(entry, "\(key).\(member.fileExtension)")
            // AE_IFREG: a regular file (the macro's cast keeps it from Swift).
            archive_entry_set_filetype(entry, 0o100000)
            archive_entry_set_perm(entry, 0o444)
            archive_entry_set_size(entry, la_int64_t(member.bytes.count))
            archive_entry_set_mtime(entry, 0, 0)
            guard archive_write_header(archive, entry) == ARCHIVE_OK else {
                throw ShardWriteError("cannot write \(partial.path): \(Self.errorText(archive))")
            }
            let written = member.bytes.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
            guard written == member.bytes.count else {
                throw ShardWriteError("cannot write \(partial.path): \(Self.errorText(archive))")
            }
        }
    }

    func finish() throws(ShardWriteError) {
        isOpen = false
        let closed = archive_write_close(archive)
        let message = Self.errorText(archive)
        archive_write_free(archive)
        guard closed == ARCHIVE_OK else { throw ShardWriteError("cannot finish \(partial.path): \(message)") }
        try ShardFiles.move(partial, to: final)
    }

    private static func errorText(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "unknown libarchive error"
    }
}
