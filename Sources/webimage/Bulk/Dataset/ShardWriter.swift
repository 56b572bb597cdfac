#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One file of a sample: `KEY.<fileExtension>`.
struct ShardMember: Sendable {
    var fileExtension: String
    var bytes: Data
}

/// Where one shard's samples go: a tar (``TarShardWriter``) or a folder (``FolderShardWriter``).
/// Samples are added in key order; ``finish()`` makes the shard visible under its name.
///
/// **Threads.** Blocking: the job's ``ShardOutput`` queue only.
protocol ShardWriter: AnyObject {
    /// Adds one successful sample: its files and its metadata record.
    func add(key: String, members: [ShardMember], record: SampleRecord) throws(ShardWriteError)
    func finish() throws(ShardWriteError)
}

/// A write that failed: the shard is not finished (no stats file), the job exits 1.
struct ShardWriteError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// File moves shared by the writers.
enum ShardFiles {
    /// Renames `from` over `to` (atomic on one file system); a folder in the way is removed first.
    static func move(_ from: URL, to: URL) throws(ShardWriteError) {
        if rename(from.path, to.path) == 0 { return }
        if errno == ENOTEMPTY || errno == EEXIST || errno == EISDIR {
            try? FileManager.default.removeItem(at: to)
            if rename(from.path, to.path) == 0 { return }
        }
        throw ShardWriteError("cannot rename \(from.path) to \(to.path): \(String(cString: strerror(errno)))")
    }

    /// Writes `data` to `url` in full, without an fsync per file (``PlainFile``): the shard
    /// becomes visible by its rename, and a job cut short is redone from its stats files.
    static func write(_ data: Data, to url: URL) throws(ShardWriteError) {
        if let failure = PlainFile.save(data, to: url.path) {
            throw ShardWriteError("cannot write \(url.path): \(failure)")
        }
    }
}

/// One `files` shard: the folder `NNNNN/` holding `KEY.jpg`, `KEY.txt`, `KEY.json` per
/// successful sample, as img2dataset writes it. The folder is filled as `.NNNNN.partial/`
/// and renamed when the shard is complete (replacing an older `NNNNN/`), so a killed job
/// leaves no half-filled shard folder under a shard's name.
final class FolderShardWriter: ShardWriter {
    private let partial: URL
    private let final: URL
    private var isFinished = false

    init(directory: URL, shardName: String) throws(ShardWriteError) {
        partial = directory.appendingPathComponent(".\(shardName).partial", isDirectory: true)
        final = directory.appendingPathComponent(shardName, isDirectory: true)
        try? FileManager.default.removeItem(at: partial)
        do {
            try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        } catch {
            throw ShardWriteError("cannot make \(partial.path): \(error.localizedDescription)")
        }
    }

    func add(key: String, members: [ShardMember], record: SampleRecord) throws(ShardWriteError) {
        for member in members {
            try ShardFiles.write(member.bytes, to: partial.appendingPathComponent("\(key).\(member.fileExtension)"))
        }
    }

    deinit {
        if !isFinished { try? FileManager.default.removeItem(at: partial) }
    }

    func finish() throws(ShardWriteError) {
        try ShardFiles.move(partial, to: final)
        isFinished = true
    }
}
