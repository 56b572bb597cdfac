import Dispatch
import Foundation
import Synchronization

/// Moves a dataset job's finished shards from the local spool folder to S3: for an
/// `s3://` output folder, ``ShardOutput`` writes each shard into the spool exactly as it
/// writes a local folder (partial names, then renames), and hands the finished shard here.
///
/// Each of the shard's files becomes one object under the prefix with the name it has in
/// the spool (`NNNNN.tar`, `NNNNN.parquet`, `NNNNN/KEY.jpg`…), `NNNNN_stats.json` last, so
/// a shard with a stats object is complete, as in a folder; a failed upload stops the shard
/// there (no stats object: `incremental` redoes it) and is reported naming the object.
/// Each file leaves the spool once sent.
///
/// **Bounds.** One shard uploads at a time: ``publish(shardName:)`` waits (on the shard
/// queue, which is not the cooperative pool) while the previous one is still going, which
/// holds back the job through ``ShardOutput/pendingBytes``. The spool so holds at most the
/// shards being written plus the one uploading; memory holds at most
/// ``S3ObjectClient/partsInFlight`` parts.
///
/// **Threads.** ``publish(shardName:)`` and ``waitForUploads()`` block: ``ShardOutput``'s
/// queue only. The upload runs in a task of its own.
final class S3ShardPublisher: Sendable {
    let client: S3ObjectClient
    let spool: URL
    /// One permit: the shard being uploaded.
    private let slot = DispatchSemaphore(value: 1)
    private let failures = Mutex<[String]>([])

    init(client: S3ObjectClient, spool: URL) {
        self.client = client
        self.spool = spool
    }

    /// The failed uploads so far, each naming its object.
    var errors: [String] { failures.withLock { $0 } }

    /// On the shard queue: starts the upload of `shardName`'s files, once the previous
    /// shard's upload is done.
    func publish(shardName: String) {
        let files = Self.files(of: shardName, in: spool)
        slot.wait()
        Task { [self] in
            defer { slot.signal() }
            await upload(files)
        }
    }

    /// On the shard queue: returns when no upload is running.
    func waitForUploads() {
        slot.wait()
        slot.signal()
    }

    /// One spooled file: its path, its name under the prefix and its size.
    struct File: Sendable {
        var path: String
        var name: String
        var size: Int
    }

    private func upload(_ files: [File]) async {
        var remaining = files[...]
        while let file = remaining.popFirst() {
            do throws(S3ObjectError) {
                try await client.upload(file: file.path, size: file.size, key: client.destination.key(file.name))
                await SpoolFile.remove(file.path)
            } catch {
                failures.withLock { $0.append(error.description) }
                for rest in [file] + remaining { await SpoolFile.remove(rest.path) }
                return
            }
        }
    }

    /// The finished files of `shardName` in `spool` (hidden partial names left out), the
    /// files of a `files` shard's folder included, its stats file last.
    static func files(of shardName: String, in spool: URL) -> [File] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []
        var found: [File] = []
        for name in names.sorted() where name == shardName || name.hasPrefix(shardName + ".") || name == shardName + "_stats.json" {
            let path = spool.appendingPathComponent(name).path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue {
                let members = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                found += members.sorted().compactMap { file(path + "/" + $0, name: name + "/" + $0) }
            } else if let entry = file(path, name: name) {
                found.append(entry)
            }
        }
        // img2dataset's own test of a finished shard is its stats file: it goes last.
        return found.filter { !$0.name.hasSuffix("_stats.json") } + found.filter { $0.name.hasSuffix("_stats.json") }
    }

    private static func file(_ path: String, name: String) -> File? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return nil }
        return File(path: path, name: name, size: size.intValue)
    }
}
