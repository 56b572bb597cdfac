import Foundation
import Testing

/// `webimage img2dataset`'s command line read as Python Fire reads img2dataset's: each case
/// runs `--print-plan` (the options as read, as JSON, nothing downloaded) and compares with
/// what `fire.Fire(download)` gives `download()` for the same words, per Fire 0.7's
/// `_ParseKeywordArgs` and `DefaultParseValue` (bare words are strings, Python literals are
/// values, `--flag`/`--noflag` are booleans) and img2dataset 1.47's signature and checks.
@Suite("webimage img2dataset: Fire-style arguments", .serialized, .timeLimit(.minutes(3)))
struct Img2DatasetArgumentsTests {
    /// The options as read from `arguments`, or the failed run.
    static func plan(_ arguments: [String]) async throws -> (options: [String: Any], run: WebImageTool.Run) {
        let run = try await WebImageTool.run(["img2dataset", "--print-plan"] + arguments)
        guard run.status == 0 else { return ([:], run) }
        let object = try #require(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], "\(run.out)")
        return (object, run)
    }

    /// img2dataset 1.47's `download()` defaults, from its signature (`inf` for float("inf")).
    static var defaults: [String: Any] { [
        "image_size": 256, "output_folder": "images", "processes_count": 1, "resize_mode": "border",
        "resize_only_if_bigger": false, "upscale_interpolation": "lanczos", "downscale_interpolation": "area",
        "encode_quality": 95, "encode_format": "jpg", "skip_reencode": false, "output_format": "files",
        "input_format": "txt", "url_col": "url", "caption_col": NSNull(), "bbox_col": NSNull(), "thread_count": 256,
        "number_sample_per_shard": 10000, "extract_exif": true, "save_additional_columns": NSNull(), "timeout": 10.0,
        "enable_wandb": false, "wandb_project": "img2dataset", "oom_shard_count": 5, "compute_hash": "sha256",
        "verify_hash": NSNull(), "distributor": "multiprocessing", "subjob_size": 1000, "retries": 0,
        "disable_all_reencoding": false, "min_image_size": 0, "max_image_area": "inf", "max_aspect_ratio": "inf",
        "incremental_mode": "incremental", "max_shard_retry": 1, "user_agent_token": NSNull(),
        "disallowed_header_directives": NSNull(),
    ] }

    @Test("with only url_list, every parameter has img2dataset's default, in download()'s order")
    func defaultsAreImg2Datasets() async throws {
        let (options, run) = try await Self.plan(["--url_list=urls.txt"])
        #expect(run.status == 0, "\(run.err)")
        #expect(options["url_list"] as? String == "urls.txt")
        // Compared as JSON texts: Foundation's number boxes differ in type between platforms.
        func json(_ value: Any) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
        }
        for (name, value) in Self.defaults {
            #expect(try json(options[name] ?? "missing") == json(value), "\(name): \(options[name] ?? "missing")")
        }
        let order = DatasetFixture.keyOrder(run.out)
        #expect(Array(order.prefix(5)) == ["url_list", "image_size", "output_folder", "processes_count", "resize_mode"])
    }

    @Test("--name=value, --name value, dashes for underscores, one dash, and positional words all set a parameter")
    func spellings() async throws {
        for arguments in [["--url_list=a.txt", "--output_folder=o"], ["--url_list", "a.txt", "--output_folder", "o"],
                          ["--url-list", "a.txt", "--output-folder=o"], ["-url_list=a.txt", "-output_folder", "o"],
                          ["a.txt", "--output_folder=o"], ["--output_folder=o", "a.txt"], ["a.txt", "256", "o"]] {
            let (options, run) = try await Self.plan(arguments)
            #expect(run.status == 0, "\(arguments): \(run.err)")
            #expect(options["url_list"] as? String == "a.txt", "\(arguments)")
            #expect(options["output_folder"] as? String == "o", "\(arguments)")
        }
        // The last of two values wins (Fire keeps a dict).
        let (twice, _) = try await Self.plan(["--url_list=a", "--image_size=64", "--image_size=128"])
        #expect(twice["image_size"] as? Int == 128)
        // A single-letter shortcut names the one parameter starting with it.
        let (short, _) = try await Self.plan(["--url_list=a", "-w", "proj"])
        #expect(short["wandb_project"] as? String == "proj")
        let ambiguous = try await Self.plan(["--url_list=a", "-u", "x"]).run
        #expect(ambiguous.status == 2 && ambiguous.err.contains("ambiguous"), "\(ambiguous.err)")
    }

    @Test("booleans: the bare flag, --noflag, =True/=False, =1/=0; text such as 'false' is refused")
    func booleans() async throws {
        let cases: [([String], Bool)] = [
            (["--resize_only_if_bigger"], true), (["--resize_only_if_bigger", "--image_size=64"], true),
            (["--resize_only_if_bigger=True"], true), (["--resize_only_if_bigger=False"], false),
            (["--resize_only_if_bigger", "False"], false), (["--noresize_only_if_bigger"], false),
            (["--resize_only_if_bigger=1"], true), (["--resize_only_if_bigger=0"], false),
            (["--resize-only-if-bigger"], true),
        ]
        for (arguments, expected) in cases {
            let (options, run) = try await Self.plan(["--url_list=a"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.err)")
            #expect(options["resize_only_if_bigger"] as? Bool == expected, "\(arguments)")
        }
        let (exif, _) = try await Self.plan(["--url_list=a", "--noextract_exif"])
        #expect(exif["extract_exif"] as? Bool == false)
        let text = try await Self.plan(["--url_list=a", "--resize_only_if_bigger=false"]).run
        #expect(text.status == 2 && text.err.contains("resize_only_if_bigger"), "\(text.err)")
    }

    @Test("lists as Fire gives them: a Python/JSON list, a bare a,b tuple, a tuple, one word; None")
    func lists() async throws {
        for spelling in ["[\"a\",\"b\"]", "['a', 'b']", "a,b", "(a, b)", "[a,b]"] {
            let (options, run) = try await Self.plan(["--url_list=x", "--input_format=csv", "--save_additional_columns", spelling])
            #expect(run.status == 0, "\(spelling): \(run.err)")
            #expect(options["save_additional_columns"] as? [String] == ["a", "b"], "\(spelling)")
        }
        let (one, _) = try await Self.plan(["--url_list=x", "--save_additional_columns=a"])
        #expect(one["save_additional_columns"] as? [String] == ["a"])
        let (none, _) = try await Self.plan(["--url_list=x", "--save_additional_columns=None", "--caption_col=None"])
        #expect(none["save_additional_columns"] is NSNull && none["caption_col"] is NSNull)
        let (directives, _) = try await Self.plan(["--url_list=x", "--disallowed_header_directives=[]"])
        #expect(directives["disallowed_header_directives"] as? [String] == [])
        let (hash, hashRun) = try await Self.plan(["--url_list=x", "--verify_hash", "[\"h\",\"sha256\"]"])
        #expect(hashRun.status == 0, "\(hashRun.err)")
        #expect(hash["verify_hash"] as? [String] == ["h", "sha256"])
    }

    @Test("values: numbers and texts typed as Python reads them; a column named with digits stays text")
    func values() async throws {
        let (o, run) = try await Self.plan(["--url_list=/data/urls 1.txt", "--timeout=2.5", "--max_image_area=inf",
                                            "--max_aspect_ratio", "3", "--caption_col", "TEXT", "--url_col=2024",
                                            "--compute_hash=md5", "--verify_hash=h,md5", "--incremental_mode=extend",
                                            "--image_size=1_024", "--user_agent_token=MyBot"])
        #expect(run.status == 0, "\(run.err)")
        #expect(o["url_list"] as? String == "/data/urls 1.txt")
        #expect(o["timeout"] as? Double == 2.5 && o["max_image_area"] as? String == "inf")
        #expect(o["max_aspect_ratio"] as? Double == 3 && o["image_size"] as? Int == 1024)
        #expect(o["caption_col"] as? String == "TEXT" && o["url_col"] as? String == "2024")
        #expect(o["compute_hash"] as? String == "md5" && o["verify_hash"] as? [String] == ["h", "md5"])
        #expect(o["incremental_mode"] as? String == "extend" && o["user_agent_token"] as? String == "MyBot")
        let (none, _) = try await Self.plan(["--url_list=a", "--compute_hash=None"])
        #expect(none["compute_hash"] is NSNull)
        let (png, _) = try await Self.plan(["--url_list=a", "--encode_format=png"])
        #expect(png["encode_quality"] as? Int == 9)
    }

    @Test("usage errors exit 2 and name the option: unknown names, bad values, img2dataset's own checks")
    func usageErrors() async throws {
        let cases: [([String], String)] = [
            (["--url_list=a", "--url_lists=b"], "--url_lists"),
            (["--url_list=a", "--frobnicate"], "--frobnicate"),
            (["--url_list=a", "--image_size=big"], "image_size"),
            (["--url_list=a", "--image_size=0"], "image_size"),
            (["--url_list=a", "--resize_mode=stretch"], "resize_mode"),
            (["--url_list=a", "--encode_format=gif"], "gif"),
            (["--url_list=a", "--encode_format=png", "--encode_quality=95"], "png"),
            (["--url_list=a", "--compute_hash=crc"], "crc"),
            (["--url_list=a", "--verify_hash=[h,md5]"], "verify_hash and compute_hash must be the same"),
            (["--url_list=a", "--verify_hash=h"], "verify_hash"),
            (["--url_list=a", "--save_additional_columns=[key,x]"], "key"),
            (["--url_list=a", "--incremental_mode=append"], "append"),
            (["--url_list=a", "--downscale_interpolation=sinc"], "sinc"),
            (["--url_list=a", "--output_format=hdf5"], "hdf5"),
            (["--url_list=a", "--distributor=dask"], "dask"),
            (["--output_folder=o"], "url_list"),
        ]
        for (arguments, needle) in cases {
            let run = try await WebImageTool.run(["img2dataset", "--print-plan"] + arguments)
            #expect(run.status == 2, "\(arguments): \(run.status) \(run.err)")
            #expect(run.err.contains(needle), "\(arguments): \(run.err)")
        }
    }

    @Test("pyspark and ray are refused with our way across machines: --shard over a Slurm array")
    func distributors() async throws {
        for distributor in ["pyspark", "ray"] {
            let run = try await WebImageTool.run(["img2dataset", "--url_list=a", "--distributor=\(distributor)"])
            #expect(run.status == 2)
            #expect(run.err.contains("--shard") && run.err.contains("Slurm"), "\(run.err)")
        }
        let (shard, run) = try await Self.plan(["--url_list=a", "--shard=1/4"])
        #expect(run.status == 0 && shard["shard"] as? String == "1/4", "\(run.err)")
        let bad = try await WebImageTool.run(["img2dataset", "--print-plan", "--url_list=a", "--shard=4/4"])
        #expect(bad.status == 2)
    }

    /// Issue #50 item 6: the plan printed `processes_count: 1` and `downscale_interpolation:
    /// area` as if they ran; `will_run` says what does.
    @Test("--print-plan's will_run: one process, a worker per core unless processes_count, the filters that resize")
    func willRun() async throws {
        let (plain, run) = try await Self.plan(["--url_list=urls.txt"])
        #expect(run.status == 0, "\(run.err)")
        let runs = try #require(plain["will_run"] as? [String: Any], "\(plain)")
        #expect(runs["processes"] as? Int == 1)
        #expect(runs["image_workers"] as? Int == ProcessInfo.processInfo.activeProcessorCount)
        #expect(runs["downscale_filter"] as? String == "Lanczos3" && runs["upscale_filter"] as? String == "Lanczos3")
        #expect(runs["transfers"] as? Int == 256 && runs["runs_on"] as? String == "this machine")
        let (asked, _) = try await Self.plan(["--url_list=urls.txt", "--processes_count=3", "--downscale_interpolation=nearest",
                                               "--thread_count=2000"])
        let askedRuns = try #require(asked["will_run"] as? [String: Any], "\(asked)")
        #expect(askedRuns["image_workers"] as? Int == 3)
        #expect((askedRuns["downscale_filter"] as? String)?.hasPrefix("nearest") == true)
        #expect(askedRuns["transfers"] as? Int == 1024, "the downloader's most")
    }

    @Test("a link named img2dataset to the tool is webimage img2dataset: the program swapped, the arguments kept")
    func calledAsImg2Dataset() async throws {
        let work = try TemporaryDirectory()
        let link = work.url.appendingPathComponent("img2dataset")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: WebImageTool.executable)
        let process = Process()
        process.executableURL = link
        process.arguments = ["--print-plan", "--url_list=urls.txt", "--image_size=64"]
        let output = work.url.appendingPathComponent("out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                c.resume()
            }
        }
        #expect(process.terminationStatus == 0)
        let options = try DatasetFixture.object(Data(contentsOf: output))
        #expect(options["url_list"] as? String == "urls.txt" && options["image_size"] as? Int == 64)
    }
}
