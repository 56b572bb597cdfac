import Foundation
import WebImageCodecs

extension Img2DatasetOptions {
    /// The dataset job these options ask for.
    func plan() throws(UsageError) -> DatasetPlan {
        guard let format = InputFormat(argument: inputFormat) else {
            throw UsageError("Invalid input format \(inputFormat); use \(InputFormat.names)")
        }
        guard let layout = ShardOutput.Layout(rawValue: outputFormat) else {
            throw UsageError("output_format \(outputFormat) is not written by this build; use files, webdataset, parquet, tfrecord or dummy")
        }
        switch distributor {
        case "multiprocessing": break
        case "pyspark", "ray":
            throw UsageError("distributor \(distributor) spreads img2dataset over a cluster; webimage runs on one machine "
                + "per process and spreads a job with --shard=I/N: run N processes (a Slurm array, "
                + "--shard=$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) on one shared output folder")
        default: throw UsageError("Distributor \(distributor) not supported")
        }
        var columns = InputColumns()
        columns.url = urlCol
        // txt lists have one column: img2dataset reads the caption as missing.
        columns.caption = captionCol
        var additional = saveAdditionalColumns ?? []
        if let bboxCol {
            // img2dataset saves the box column too.
            if !additional.contains(bboxCol) { additional.append(bboxCol) }
            columns.boxes = bboxCol
        }
        columns.additional = format == .txt ? [] : additional
        columns.verifyHash = format == .txt ? nil : verifyHash?.column

        var plan = DatasetPlan(file: urlList, out: outputFolder, format: format, formatName: inputFormat,
                               columns: columns, layout: layout)
        plan.samplesPerShard = numberSamplePerShard
        plan.shardDigits = oomShardCount
        var image = SampleProcessor.Settings()
        image.mode = resizeMode
        image.size = imageSize
        image.onlyIfBigger = resizeOnlyIfBigger
        image.format = encodeFormat
        image.quality = encodeQuality
        image.minImageSize = minImageSize
        image.maxImageArea = maxImageArea
        image.maxAspectRatio = maxAspectRatio
        image.skipReencode = skipReencode
        image.disablesAllReencoding = disableAllReencoding
        image.upscale = given.contains("upscale_interpolation") ? SampleInterpolation(openCVName: upscaleInterpolation) : .lanczos3
        image.downscale = given.contains("downscale_interpolation") ? SampleInterpolation(openCVName: downscaleInterpolation) : .lanczos3
        image.hash = computeHash
        image.extractsEXIF = extractExif
        plan.image = image
        plan.concurrency = min(threadCount, Self.maxTransfers)
        plan.imageWorkers = given.contains("processes_count") ? processesCount : nil
        plan.timeout = timeout
        plan.retries = retries
        plan.perHostConcurrency = perHostConcurrency
        plan.directives = disallowedHeaderDirectives ?? RobotsTag.defaultDirectives
        plan.userAgentToken = userAgentToken
        plan.shardSelection = shard
        plan.incremental = incrementalMode
        plan.ignoresCertificates = ignoreSSLCertificate
        plan.writesJSONLines = jsonlMetadata
        plan.allowsFileURLs = allowFileURLs
        plan.spelling = .img2dataset
        return plan
    }

    /// The downloader's most transfers at once (``DownloaderConfig/concurrencyRange``).
    static let maxTransfers = 1024

    /// What webimage does with the options that choose img2dataset's way of running, one
    /// line each, for those the command line gave (said once on stderr).
    var notes: [String] {
        var lines: [String] = []
        if given.contains("thread_count") {
            let transfers = min(threadCount, Self.maxTransfers)
            lines.append("thread_count=\(threadCount): up to \(transfers) transfers at once (at most \(perHostConcurrency) per host"
                + (transfers < threadCount ? "; \(Self.maxTransfers) is the downloader's most)" : ")"))
        }
        if given.contains("processes_count") {
            lines.append("processes_count=\(processesCount): \(processesCount) image workers (decode, resize, encode) in this one process")
        }
        if given.contains("distributor") { lines.append("distributor=multiprocessing: this machine") }
        if given.contains("subjob_size") {
            lines.append("subjob_size=\(subjobSize): ignored; rows stream through one job, shard by shard")
        }
        if given.contains("max_shard_retry") {
            lines.append("max_shard_retry=\(maxShardRetry): ignored; a shard that cannot be written is left without its "
                + "_stats.json, the exit status is 1, and running the same command again (incremental_mode) redoes it")
        }
        if given.contains("oom_shard_count") {
            lines.append("oom_shard_count=\(oomShardCount): shard names have at least \(oomShardCount) digits")
        }
        if enableWandb {
            lines.append("enable_wandb=True: ignored (no Weights & Biases logging); progress goes to stderr, "
                + "each shard's counts to NNNNN_stats.json")
        } else if given.contains("wandb_project") {
            lines.append("wandb_project: ignored (no Weights & Biases logging)")
        }
        if given.contains("upscale_interpolation") || given.contains("downscale_interpolation") {
            lines.append("interpolation: upscale \(upscaleInterpolation) → \(SampleInterpolation(openCVName: upscaleInterpolation).displayName), "
                + "downscale \(downscaleInterpolation) → \(SampleInterpolation(openCVName: downscaleInterpolation).displayName)")
        }
        if outputFormat == "dummy" { lines.append("output_format=dummy: only NNNNN_stats.json is written, as img2dataset") }
        return lines
    }

}
