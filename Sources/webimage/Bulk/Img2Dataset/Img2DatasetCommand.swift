import ArgumentParser
import Foundation

/// `webimage img2dataset`: img2dataset 1.47's command line, unchanged. A user swaps the
/// program name and keeps every argument: `webimage img2dataset --url_list=urls.txt
/// --output_folder=out --thread_count=64 --resize_mode=border`.
///
/// The arguments are read as Python Fire reads them (``FireArguments``, ``FireValue``),
/// typed and checked against `download()`'s parameters with img2dataset's defaults
/// (``Img2DatasetOptions``), mapped to a ``DatasetPlan`` and run by ``DatasetRunner``. The
/// options that only choose img2dataset's way of running (threads, processes, distributor,
/// wandb) are each said once on stderr with what they mean here.
///
/// Exit status: 0 when every shard was written, 1 when the list could not be read to its
/// end or a shard could not be written, 2 for an unknown option or a bad value.
struct Img2DatasetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "img2dataset",
        abstract: "Download an image dataset with img2dataset's own command line (img2dataset 1.47's download()).",
        discussion: """
        Every parameter of img2dataset's download() is accepted with its spelling: --url_list=X or \
        --url_list X, dashes or underscores, Fire booleans (--flag, --noflag, --flag=True/False), lists \
        as '["a","b"]' or a,b. Defaults are img2dataset's (image_size 256, resize_mode border, \
        output_format files, input_format txt, encode_format jpg, encode_quality 95, \
        number_sample_per_shard 10000, compute_hash sha256, extract_exif True, timeout 10, \
        incremental_mode incremental). webimage adds --shard=I/N (split a job over N processes or \
        machines), --per_host_concurrency=N, --ignore_ssl_certificate, --jsonl_metadata (each \
        shard's metadata also as NNNNN.jsonl, beside NNNNN.parquet) and --allow_file_urls (on: file: rows \
        load, as img2dataset's urllib reads them; =False refuses them). --output_folder may be \
        s3://bucket/prefix (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, \
        AWS_ENDPOINT_URL; multipart above WEBIMAGE_S3_PART_SIZE, 8 MiB). --print-plan prints the \
        options as read, as JSON, then "will_run" (processes, image workers, transfers, the filters that \
        resize), and downloads nothing; --count-shards reads the whole list and \
        prints {"rows": R, "shards": S} (the shards it makes, numbered from 0), writing nothing. The bulk article lists each option as \
        accepted, mapped or refused.

        Parameters: \(Img2DatasetOptions.parameters.joined(separator: ", ")).
        """
    )

    @Argument(parsing: .captureForPassthrough, help: "img2dataset's arguments, e.g. --url_list=urls.txt --output_folder=out.")
    var arguments: [String] = []

    func run() async throws {
        var arguments = arguments
        if arguments.contains("--help") || arguments == ["-h"] {
            print(Self.helpMessage())
            return
        }
        let printsPlan = arguments.contains("--print-plan")
        let countsShards = arguments.contains("--count-shards")
        arguments.removeAll { $0 == "--print-plan" || $0 == "--count-shards" }
        let options: Img2DatasetOptions
        let plan: DatasetPlan
        do throws(Img2DatasetOptions.UsageError) {
            options = try Img2DatasetOptions(arguments: arguments)
            plan = try options.plan()
        } catch {
            throw Self.usageError(error.description)
        }
        if printsPlan {
            print(options.printedPlan(plan, cores: ProcessInfo.processInfo.activeProcessorCount).pretty())
            return
        }
        if countsShards {
            // The Python package's driver asks this before it hands one shard to each Spark or Ray task.
            let count = try await Self.reportingUsage { try await DatasetRunner(plan: plan).countShards() }
            print("{\"rows\": \(count.rows), \"shards\": \(count.shards)}")
            return
        }
        for note in options.notes { Terminal.writeError("webimage img2dataset: \(note)\n") }
        try await Self.reportingUsage { try await DatasetRunner(plan: plan).run() }
    }

    /// Runs `body`; a usage problem it finds (the list, its columns) is said as any other.
    private static func reportingUsage<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ValidationError {
            throw usageError(error.message)
        }
    }

    /// Says `message` in this command's one error format (img2dataset's words, without the
    /// root command's usage line, which names no option) and gives exit status 2.
    private static func usageError(_ message: String) -> ExitCode {
        Terminal.writeError("webimage img2dataset: error: \(message) (see webimage img2dataset --help)\n")
        return ExitCode(2)
    }
}
