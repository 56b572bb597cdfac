extension Img2DatasetOptions {
    /// Every parameter's value as read (defaults included), in `download()`'s order, with
    /// Python's spelling of each value's type: what `--print-plan` shows and what the tests
    /// of the command line compare.
    var json: JSONValue {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func list(_ l: [String]?) -> JSONValue { l.map { .array($0.map(JSONValue.string)) } ?? .null }
        func number(_ d: Double) -> JSONValue { d.isFinite ? .double(d) : .string("inf") }
        let members: [(String, JSONValue)] = [
            ("url_list", .string(urlList)), ("image_size", .int(imageSize)), ("output_folder", .string(outputFolder)),
            ("processes_count", .int(processesCount)), ("resize_mode", .string(resizeMode.rawValue)),
            ("resize_only_if_bigger", .bool(resizeOnlyIfBigger)), ("upscale_interpolation", .string(upscaleInterpolation)),
            ("downscale_interpolation", .string(downscaleInterpolation)), ("encode_quality", .int(encodeQuality)),
            ("encode_format", .string(encodeFormat.rawValue)), ("skip_reencode", .bool(skipReencode)),
            ("output_format", .string(outputFormat)), ("input_format", .string(inputFormat)),
            ("url_col", .string(urlCol)), ("caption_col", text(captionCol)), ("bbox_col", text(bboxCol)),
            ("thread_count", .int(threadCount)), ("number_sample_per_shard", .int(numberSamplePerShard)),
            ("extract_exif", .bool(extractExif)), ("save_additional_columns", list(saveAdditionalColumns)),
            ("timeout", number(timeout)), ("enable_wandb", .bool(enableWandb)), ("wandb_project", .string(wandbProject)),
            ("oom_shard_count", .int(oomShardCount)), ("compute_hash", text(computeHash?.rawValue)),
            ("verify_hash", verifyHash.map { .array([.string($0.column), .string($0.type.rawValue)]) } ?? .null),
            ("distributor", .string(distributor)), ("subjob_size", .int(subjobSize)), ("retries", .int(retries)),
            ("disable_all_reencoding", .bool(disableAllReencoding)), ("min_image_size", .int(minImageSize)),
            ("max_image_area", number(maxImageArea)), ("max_aspect_ratio", number(maxAspectRatio)),
            ("incremental_mode", .string(incrementalMode.rawValue)), ("max_shard_retry", .int(maxShardRetry)),
            ("user_agent_token", text(userAgentToken)), ("disallowed_header_directives", list(disallowedHeaderDirectives)),
            ("ignore_ssl_certificate", .bool(ignoreSSLCertificate)),
            ("shard", shard.map { .string("\($0.index)/\($0.count)") } ?? .null),
            ("per_host_concurrency", .int(perHostConcurrency)),
            ("jsonl_metadata", .bool(jsonlMetadata)),
            ("allow_file_urls", .bool(allowFileURLs)),
        ]
        return .object(members)
    }

    /// What `--print-plan` prints: ``json`` (the options as read), then `will_run`, what
    /// this build does with the ones whose img2dataset meaning does not happen here as
    /// written (processes, threads, interpolation, distributor).
    func printedPlan(_ plan: DatasetPlan, cores: Int) -> JSONValue {
        guard case .object(var members) = json else { return json }
        let workers = plan.imageWorkers ?? cores
        members.append(("will_run", .object([
            ("processes", .int(1)),
            ("image_workers", .int(workers)),
            ("transfers", .int(plan.concurrency)),
            ("per_host_transfers", .int(plan.perHostConcurrency)),
            ("downscale_filter", .string(plan.image.downscale.displayName)),
            ("upscale_filter", .string(plan.image.upscale.displayName)),
            ("runs_on", .string(distributor == "multiprocessing" ? "this machine" : distributor)),
        ])))
        return .object(members)
    }
}
