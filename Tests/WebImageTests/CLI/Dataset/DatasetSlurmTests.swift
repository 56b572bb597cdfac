import Foundation
import Testing
import WebImageTestOrigin

/// The Slurm array script of the bulk article (BulkDatasets.md), run as written on a one-node cluster started here:
/// the union of its four tasks' shards is the unsharded run's, byte for byte (the stats'
/// times aside).
@Suite("webimage fetch: the documented Slurm array job", .serialized, .timeLimit(.minutes(3)),
       .enabled(if: SlurmCluster.unavailableReason == nil, Comment(rawValue: SlurmCluster.unavailableReason ?? "")))
struct DatasetSlurmTests {
    /// The bulk article's sbatch script: the shell block holding `#SBATCH --array`.
    static func documentedScript() throws -> String {
        let article = try String(contentsOf: Corpus.packageRoot.appendingPathComponent(
            "Sources/WebImage/WebImage.docc/BulkDatasets.md"), encoding: .utf8)
        let blocks = article.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        return try #require(blocks.first { $0.contains("#SBATCH --array=0-3") }, "BulkDatasets.md has no Slurm array script")
    }

    @Test("sbatch --array=0-3 of the documented script writes the unsharded run's shards")
    func arrayJob() async throws {
        let script = try Self.documentedScript()
        #expect(script.hasPrefix("#!/bin/bash\n"))
        #expect(script.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\""))

        try await TestOrigin.with { origin in
            let jpeg = Array(try Corpus.data(DatasetFixture.jpegPath))
            var csv = "url,caption\n"
            for i in 0..<30 {
                let path = "/img/\(i).jpg"
                origin.route(path, i % 11 == 5 ? .status(404) : .init(body: jpeg, contentType: "image/jpeg"))
                csv += "\(origin.url(path).absoluteString),picture \(i)\n"
            }
            let work = try TemporaryDirectory()
            _ = try DatasetFixture.write(csv, "urls.csv", in: work)
            let scriptURL = work.url.appendingPathComponent("dataset.sbatch")
            try script.write(to: scriptURL, atomically: true, encoding: .utf8)
            let toolDirectory = WebImageTool.executable.deletingLastPathComponent().path
            let environment = ["PATH": toolDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                               "SAMPLES_PER_SHARD": "4"]

            // The unsharded run: the script's own command without --shard, into reference/.
            let command = script.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
                .replacingOccurrences(of: "\\\n", with: " ")
                .replacingOccurrences(of: "--shard \"$SLURM_ARRAY_TASK_ID/4\"", with: "")
                .replacingOccurrences(of: "--out shards", with: "--out reference")
            try #require(!command.contains("SLURM_ARRAY_TASK_ID") && command.contains("--out reference"))
            var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            env["PWD"] = work.path
            let (status, text) = try await SlurmCluster.runCapturing("/bin/bash", ["-c", "cd \"$0\" && " + command, work.path], environment: env)
            #expect(status == 0, "\(text)")
            let reference = try DatasetFixture.comparable(work.url.appendingPathComponent("reference"))
            #expect(reference.keys.filter { $0.hasSuffix(".tar") }.count == 8, "30 rows at 4 per shard")

            let clusterDirectory = try TemporaryDirectory()
            let cluster = try await SlurmCluster.start(in: clusterDirectory.url)
            // The folder holds the pid files stop() reads: keep it until the daemons are gone
            // (Swift may end a local's lifetime at its last use).
            defer { withExtendedLifetime(clusterDirectory) { cluster.stop() } }
            let (submitted, output) = try await cluster.submit(scriptURL, in: work.url, environment: environment)
            #expect(submitted == 0, "sbatch: \(output)\n\(cluster.logs)")
            let logs = (0..<4).map { (try? String(contentsOf: work.url.appendingPathComponent("webimage-dataset-\($0).log"),
                                                    encoding: .utf8)) ?? "no log" }
            for (task, log) in logs.enumerated() { #expect(log.contains("wrote 2 shards"), "task \(task): \(log)") }
            #expect(try DatasetFixture.comparable(work.url.appendingPathComponent("shards")) == reference)
        }
    }
}
