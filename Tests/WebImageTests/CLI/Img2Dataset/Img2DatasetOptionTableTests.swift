import Foundation
import Testing

/// The bulk article's table of img2dataset's options (BulkDatasets.md, "webimage img2dataset:
/// img2dataset's command line, unchanged") held to the tool: it names every parameter the
/// tool reads, in `download()`'s order, says of each whether it is accepted, mapped, ignored
/// or refused, gives the defaults `--print-plan` reads, and the options it calls mapped or
/// ignored are said on stderr when given.
@Suite("webimage img2dataset: the bulk article's option table", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetOptionTableTests {
    struct Entry {
        var name: String
        var isOurs: Bool
        var defaultText: String
        var here: String
    }

    /// The table's rows: `| name | default | here |`, a `(ours)` suffix on webimage's additions.
    static func table() throws -> [Entry] {
        let article = try String(contentsOf: Corpus.packageRoot.appendingPathComponent(
            "Sources/WebImage/WebImage.docc/BulkDatasets.md"), encoding: .utf8)
        let lines = article.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| img2dataset option | Default | Here |") })
        return lines[(header + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[0].replacingOccurrences(of: "`", with: "")
            return Entry(name: name.replacingOccurrences(of: " (ours)", with: ""), isOurs: name.hasSuffix(" (ours)"),
                         defaultText: cells[1].replacingOccurrences(of: "`", with: ""), here: cells[2])
        }
    }

    /// `download()`'s parameters as the tool's help lists them (after "Parameters:").
    static func helpParameters() async throws -> [String] {
        let help = try await WebImageTool.run(["img2dataset", "--help"])
        let after = try #require(help.out.components(separatedBy: "Parameters:").last, "\(help.out)")
        let text = after.components(separatedBy: "\n\n").first ?? ""
        return text.split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == " " || $0 == "." }).map(String.init)
    }

    /// The parameters of img2dataset 1.47's `download()` (img2dataset/main.py), in order.
    static let download = [
        "url_list", "image_size", "output_folder", "processes_count", "resize_mode", "resize_only_if_bigger",
        "upscale_interpolation", "downscale_interpolation", "encode_quality", "encode_format", "skip_reencode",
        "output_format", "input_format", "url_col", "caption_col", "bbox_col", "thread_count", "number_sample_per_shard",
        "extract_exif", "save_additional_columns", "timeout", "enable_wandb", "wandb_project", "oom_shard_count",
        "compute_hash", "verify_hash", "distributor", "subjob_size", "retries", "disable_all_reencoding", "min_image_size",
        "max_image_area", "max_aspect_ratio", "incremental_mode", "max_shard_retry", "user_agent_token",
        "disallowed_header_directives", "ignore_ssl_certificate",
    ]

    @Test("every parameter of download() and every one the tool reads, in order, each accepted, mapped, ignored or refused")
    func everyParameter() async throws {
        let table = try Self.table()
        #expect(table.filter { !$0.isOurs }.map(\.name) == Self.download)
        #expect(table.map(\.name) == (try await Self.helpParameters()))
        for entry in table where !entry.isOurs {
            let verdict = entry.here.split(separator: " ").first.map { String($0).trimmingCharacters(in: .punctuationCharacters) }
            #expect(["accepted", "mapped", "ignored", "refused"].contains(verdict ?? ""), "\(entry.name): \(entry.here)")
        }
    }

    @Test("the Default column is what --print-plan reads when only url_list is given")
    func defaults() async throws {
        let run = try await WebImageTool.run(["img2dataset", "--print-plan", "--url_list=urls.txt"])
        #expect(run.status == 0, "\(run.err)")
        // `"name": value` lines of the plan, the value as JSON text.
        var plan: [String: String] = [:]
        for line in run.out.split(separator: "\n") {
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var value = parts[1].trimmingCharacters(in: .whitespaces)
            if value.hasSuffix(",") { value.removeLast() }
            plan[parts[0].trimmingCharacters(in: CharacterSet(charactersIn: "\""))] = value
        }
        // Python's spelling of a JSON value, as the article writes defaults.
        func python(_ json: String) -> String {
            switch json {
            case "true": "True"
            case "false": "False"
            case "null": "None"
            default: json.hasPrefix("\"") ? String(json.dropFirst().dropLast()) : json
            }
        }
        // Described rather than spelled: url_list has none; download()'s None for the directives
        // stands for img2dataset's four; `shard` not given is every shard.
        let described = ["url_list": "required", "disallowed_header_directives": "noai, noimageai, noindex, noimageindex",
                         "shard": "all"]
        for entry in try Self.table() {
            let value = try #require(plan[entry.name], "--print-plan has no \(entry.name)")
            if let text = described[entry.name] {
                #expect(entry.defaultText == text, "\(entry.name)")
                continue
            }
            let expected = python(value)
            if let a = Double(expected), let b = Double(entry.defaultText) {
                #expect(a == b, "\(entry.name): the plan says \(expected), the article \(entry.defaultText)")
            } else {
                #expect(expected == entry.defaultText, "\(entry.name): the plan says \(expected), the article \(entry.defaultText)")
            }
        }
    }

    @Test("each option the table calls mapped or ignored is said on stderr when given")
    func mappedAndIgnoredAreSaid() async throws {
        // A value other than the default for each; a row without one here fails, so a new
        // mapped or ignored option gets a value and a check.
        let values = ["processes_count": "2", "thread_count": "8", "upscale_interpolation": "area",
                      "downscale_interpolation": "bicubic", "distributor": "multiprocessing", "enable_wandb": "True",
                      "wandb_project": "laion", "subjob_size": "10", "max_shard_retry": "2"]
        let work = try TemporaryDirectory()
        let list = try DatasetFixture.write("", "empty.txt", in: work)
        let entries = try Self.table().filter { !$0.isOurs && ($0.here.hasPrefix("mapped") || $0.here.hasPrefix("ignored")) }
        #expect(!entries.isEmpty)
        for entry in entries {
            let value = try #require(values[entry.name], "no value for \(entry.name) in this test")
            let out = work.url.appendingPathComponent(entry.name).path
            let run = try await WebImageTool.run(["img2dataset", "--url_list=\(list)", "--output_folder=\(out)",
                                                  "--\(entry.name)=\(value)"])
            #expect(run.status == 0, "\(entry.name): \(run.err)")
            let said = run.err.split(separator: "\n").filter { $0.hasPrefix("webimage img2dataset: ") }
            let word = entry.name.replacingOccurrences(of: "_interpolation", with: "")
            #expect(said.contains { $0.contains(entry.name) || $0.contains("interpolation: ") && $0.contains(word) },
                    "\(entry.name)=\(value): \(run.err)")
        }
    }
}
