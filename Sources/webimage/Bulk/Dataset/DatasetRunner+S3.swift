import ArgumentParser
import Foundation
import WebImage

extension DatasetRunner {
    /// Runs the job into `spool` and uploads its shards with `client`, after ``prepare(_:incremental:)``.
    /// A failed listing is said on stderr and is exit status 1, before any download.
    func run(reader: DatasetRowReader, s3 client: S3ObjectClient, spool: URL) async throws {
        let start: (done: Set<Int>, first: Int)
        do throws(S3ObjectError) {
            start = try await Self.prepare(client, incremental: plan.incremental)
        } catch {
            Terminal.writeError("webimage: \(error)\n")
            throw ExitCode.failure
        }
        let made = (try? await BlockingIOPool.shared.run {
            (try? FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)) != nil
        }) ?? false
        guard made else {
            throw ValidationError("cannot create the spool folder \(spool.path) for \(client.destination.displayURL)")
        }
        try await run(reader: reader, directory: spool, doneShards: start.done, firstShard: start.first, s3: client)
    }

    /// Gets an `s3://` output folder ready for `incremental`, as img2dataset treats a folder
    /// (its `main.py` through fsspec): the shards already done (`incremental`: a
    /// `NNNNN_stats.json` object directly under the prefix), the first new shard number
    /// (`extend`), or every object under the prefix deleted (`overwrite`, fsspec's recursive
    /// `rm`). Always lists once, so wrong credentials or a missing bucket stop the job
    /// before any download.
    ///
    /// - Throws: ``S3ObjectError`` naming the bucket and prefix and what S3 said.
    static func prepare(_ client: S3ObjectClient, incremental: DatasetPlan.Incremental)
        async throws(S3ObjectError) -> (done: Set<Int>, first: Int) {
        let destination = client.destination
        let folder = destination.prefix.isEmpty ? "" : destination.prefix + "/"
        let top = try await client.list(prefix: folder, recursive: false)
        let finished = finishedShards(names: top.map { String($0.dropFirst(folder.count)) })
        switch incremental {
        case .incremental:
            return (finished, 0)
        case .extend:
            return ([], (finished.max() ?? -1) + 1)
        case .overwrite:
            for key in try await client.list(prefix: folder, recursive: true) {
                try await client.delete(key: key)
            }
            return ([], 0)
        case .rewrite:
            return ([], 0)
        }
    }

    /// The local folder `output` names: a `file://` URL's path, else `output` itself.
    static func localPath(_ output: String) -> String {
        guard S3Destination.scheme(of: output) == "file", let url = URL(string: output), url.isFileURL else { return output }
        return url.path
    }
}
