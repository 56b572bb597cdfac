import Foundation

/// The parameters of img2dataset 1.47's `download()`, typed, with its defaults, read from an
/// img2dataset command line by ``FireArguments`` (`webimage img2dataset --url_list=… …`).
///
/// Values are checked as img2dataset checks them (its `arguments_validator` and its
/// resizer's), plus type checks Python leaves to a crash later: a bad value is a usage error
/// naming the option. Booleans take what Fire gives a Python `bool` parameter: the bare
/// flag, `--noflag`, `True`/`False`, or 0/1; any other text is refused (Fire would pass the
/// string on, and Python would take `false` as true).
///
/// Five parameters are webimage's own, after img2dataset's: `ignore_ssl_certificate`
/// (img2dataset's later releases), `shard` (`I/N`: this process writes the shards whose
/// number mod N is I, our way across machines), `per_host_concurrency`,
/// `jsonl_metadata` (each shard's metadata also as `NNNNN.jsonl`, beside img2dataset's
/// `NNNNN.parquet`; off, so the folder holds what img2dataset's does) and
/// `allow_file_urls` (on, as img2dataset's urllib reads `file:` rows; `False` refuses them).
struct Img2DatasetOptions: Sendable {
    /// `download()`'s parameters in its order (Fire fills positional words in this order),
    /// then webimage's.
    static let parameters = [
        "url_list", "image_size", "output_folder", "processes_count", "resize_mode", "resize_only_if_bigger",
        "upscale_interpolation", "downscale_interpolation", "encode_quality", "encode_format", "skip_reencode",
        "output_format", "input_format", "url_col", "caption_col", "bbox_col", "thread_count",
        "number_sample_per_shard", "extract_exif", "save_additional_columns", "timeout", "enable_wandb",
        "wandb_project", "oom_shard_count", "compute_hash", "verify_hash", "distributor", "subjob_size", "retries",
        "disable_all_reencoding", "min_image_size", "max_image_area", "max_aspect_ratio", "incremental_mode",
        "max_shard_retry", "user_agent_token", "disallowed_header_directives",
        "ignore_ssl_certificate", "shard", "per_host_concurrency", "jsonl_metadata", "allow_file_urls",
    ]

    /// OpenCV's interpolation names img2dataset accepts (its `_INTER_STR_TO_CV2`).
    static let interpolations = ["nearest", "linear", "bilinear", "cubic", "bicubic", "area", "lanczos", "lanczos4"]
    static let outputFormats = ["files", "webdataset", "parquet", "tfrecord", "dummy"]

    var urlList = ""
    var imageSize = 256
    var outputFolder = "images"
    var processesCount = 1
    var resizeMode = ResizeMode.border
    var resizeOnlyIfBigger = false
    var upscaleInterpolation = "lanczos"
    var downscaleInterpolation = "area"
    var encodeQuality = 95
    var encodeFormat = EncodeFormat.jpg
    var skipReencode = false
    var outputFormat = "files"
    var inputFormat = "txt"
    var urlCol = "url"
    var captionCol: String?
    var bboxCol: String?
    var threadCount = 256
    var numberSamplePerShard = 10_000
    var extractExif = true
    var saveAdditionalColumns: [String]?
    var timeout: Double = 10
    var enableWandb = false
    var wandbProject = "img2dataset"
    var oomShardCount = 5
    var computeHash: SampleHash? = .sha256
    var verifyHash: (column: String, type: SampleHash)?
    var distributor = "multiprocessing"
    var subjobSize = 1000
    var retries = 0
    var disableAllReencoding = false
    var minImageSize = 0
    var maxImageArea = Double.infinity
    var maxAspectRatio = Double.infinity
    var incrementalMode = DatasetPlan.Incremental.incremental
    var maxShardRetry = 1
    var userAgentToken: String?
    var disallowedHeaderDirectives: [String]?
    var ignoreSSLCertificate = false
    var jsonlMetadata = false
    var allowFileURLs = true
    var shard: (index: Int, count: Int)?
    var perHostConcurrency = DatasetOptions.defaultPerHostConcurrency
    /// The parameters the command line gave.
    private(set) var given: Set<String> = []

    struct UsageError: Error, Sendable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    init(arguments: [String]) throws(UsageError) {
        let fire: FireArguments
        do throws(FireArguments.UsageError) {
            fire = try FireArguments(arguments, parameters: Self.parameters)
        } catch {
            throw UsageError(error.description)
        }
        let read = FireValueReader(fire: fire)
        guard let list = try read.string("url_list") else {
            throw UsageError("img2dataset needs url_list: the URL list file or folder (--url_list=FILE)")
        }
        urlList = list
        imageSize = try read.int("image_size", in: 1...65_535) ?? imageSize
        outputFolder = try read.string("output_folder") ?? outputFolder
        processesCount = try read.int("processes_count", in: 1...1024) ?? processesCount
        if let mode = try read.string("resize_mode") {
            guard let value = ResizeMode(rawValue: mode) else {
                throw UsageError("Invalid option for resize_mode: \(mode); use "
                    + ResizeMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            resizeMode = value
        }
        resizeOnlyIfBigger = try read.bool("resize_only_if_bigger") ?? resizeOnlyIfBigger
        upscaleInterpolation = try read.interpolation("upscale_interpolation") ?? upscaleInterpolation
        downscaleInterpolation = try read.interpolation("downscale_interpolation") ?? downscaleInterpolation
        if let format = try read.string("encode_format") {
            guard let value = EncodeFormat(rawValue: format) else {
                throw UsageError("Invalid encode format \(format); use jpg, png or webp")
            }
            encodeFormat = value
        }
        if let quality = try read.int("encode_quality", in: 0...1000) {
            encodeQuality = quality
        } else if encodeFormat == .png {
            // img2dataset refuses its own default 95 for png; a png job without a quality gets 9.
            encodeQuality = 9
        }
        if encodeFormat == .png && !(0...9).contains(encodeQuality) {
            throw UsageError("For png, encode quality represents compression which must be between 0 and 9, got \(encodeQuality)")
        }
        if encodeFormat != .png && encodeQuality > (encodeFormat == .webp ? 1000 : 100) {
            throw UsageError("encode_quality for \(encodeFormat.rawValue) must be 0 to 100; got \(encodeQuality)")
        }
        skipReencode = try read.bool("skip_reencode") ?? skipReencode
        if let format = try read.string("output_format") {
            guard Self.outputFormats.contains(format) else {
                throw UsageError("Invalid output format \(format); use \(Self.outputFormats.joined(separator: ", "))")
            }
            outputFormat = format
        }
        inputFormat = try read.string("input_format") ?? inputFormat
        urlCol = try read.string("url_col") ?? urlCol
        captionCol = try read.optionalString("caption_col")
        bboxCol = try read.optionalString("bbox_col")
        threadCount = try read.int("thread_count", in: 1...1_000_000) ?? threadCount
        numberSamplePerShard = try read.int("number_sample_per_shard", in: DatasetOptions.samplesPerShardRange)
            ?? numberSamplePerShard
        extractExif = try read.bool("extract_exif") ?? extractExif
        saveAdditionalColumns = try read.stringList("save_additional_columns")
        timeout = try read.double("timeout", in: 0.001...86_400) ?? timeout
        enableWandb = try read.bool("enable_wandb") ?? enableWandb
        wandbProject = try read.string("wandb_project") ?? wandbProject
        oomShardCount = try read.int("oom_shard_count", in: 1...18) ?? oomShardCount
        if read.has("compute_hash") {
            if let name = try read.optionalString("compute_hash") {
                guard let hash = SampleHash(rawValue: name) else { throw UsageError("Unsupported hash to compute: \(name)") }
                computeHash = hash
            } else {
                computeHash = nil
            }
        }
        if let pair = try read.stringList("verify_hash") {
            guard pair.count == 2 else {
                throw UsageError("verify_hash takes [column, hash type], e.g. '[\"sha256\",\"sha256\"]'; got \(pair.count) values")
            }
            guard let type = SampleHash(rawValue: pair[1]) else { throw UsageError("Invalid hash type \(pair[1])") }
            guard type == computeHash else {
                throw UsageError("verify_hash and compute_hash must be the same but got \(pair[1]) and "
                    + (computeHash?.rawValue ?? "None"))
            }
            verifyHash = (pair[0], type)
        }
        distributor = try read.string("distributor") ?? distributor
        subjobSize = try read.int("subjob_size", in: 1...Int(Int32.max)) ?? subjobSize
        retries = try read.int("retries", in: 0...100) ?? retries
        disableAllReencoding = try read.bool("disable_all_reencoding") ?? disableAllReencoding
        minImageSize = try read.int("min_image_size", in: 0...Int(Int32.max)) ?? minImageSize
        maxImageArea = try read.double("max_image_area", in: 0...Double.infinity) ?? maxImageArea
        maxAspectRatio = try read.double("max_aspect_ratio", in: 0...Double.infinity) ?? maxAspectRatio
        if let mode = try read.string("incremental_mode") {
            guard let value = DatasetPlan.Incremental(rawValue: mode), value != .rewrite else {
                throw UsageError("Unknown incremental mode \(mode); use incremental, overwrite or extend")
            }
            incrementalMode = value
        }
        maxShardRetry = try read.int("max_shard_retry", in: 0...1000) ?? maxShardRetry
        userAgentToken = try read.optionalString("user_agent_token")
        disallowedHeaderDirectives = try read.stringList("disallowed_header_directives")
        ignoreSSLCertificate = try read.bool("ignore_ssl_certificate") ?? ignoreSSLCertificate
        jsonlMetadata = try read.bool("jsonl_metadata") ?? jsonlMetadata
        allowFileURLs = try read.bool("allow_file_urls") ?? allowFileURLs
        if let text = try read.string("shard") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), (1...1_000_000).contains(n), (0..<n).contains(i)
            else { throw UsageError("shard takes I/N with 0 ≤ I < N ≤ 1000000, e.g. --shard=0/4; got '\(text)'") }
            shard = (i, n)
        }
        perHostConcurrency = try read.int("per_host_concurrency", in: DatasetOptions.perHostRange) ?? perHostConcurrency
        try checkColumns()
        given = Set(fire.values.keys)
    }

    /// img2dataset's rule: an additional column may not take one of its own names.
    private func checkColumns() throws(UsageError) {
        let reserved = (saveAdditionalColumns ?? []).filter(InputColumns.reserved.contains)
        if !reserved.isEmpty {
            throw UsageError("You cannot use in save_additional_columns the following columns: "
                + reserved.joined(separator: ", ") + ". img2dataset reserves these columns for its own use.")
        }
    }
}
