import ArgumentParser
import Foundation
import WebImageCodecs

/// img2dataset's flags on `fetch --file` (shared/DESIGN.md, round 3), with dashes for its
/// underscores. Any of them turns the job into a ``DatasetJob``: rows in, shards out.
struct DatasetOptions: ParsableArguments {
    @Option(name: .customLong("input-format"), help: "How --file is read: \(InputFormat.names); a folder reads its files of that extension. Default txt.")
    var inputFormat: String?

    @Option(name: .customLong("url-col"), help: "The column holding the URL (csv, tsv, json, jsonl). Default url.")
    var urlColumn: String?

    @Option(name: .customLong("caption-col"), help: "The column holding the caption: written as KEY.txt and into KEY.json.")
    var captionColumn: String?

    @Option(name: .customLong("save-additional-columns"), help: "Columns copied into each sample's JSON, comma-separated: a,b.")
    var additionalColumns: String?

    @Option(name: .customLong("output-format"), help: "files (NNNNN/KEY.jpg, KEY.txt, KEY.json), webdataset (NNNNN.tar), parquet (NNNNN.parquet, the image in a binary column), tfrecord (NNNNN.tfrecord) or dummy (stats only). Default files.")
    var outputFormat: String?

    @Option(name: .customLong("number-sample-per-shard"), parsing: .unconditional, help: "Rows per shard: 1 to 100000000. Default 10000.")
    var samplesPerShard: Int?

    @Option(name: .customLong("resize-mode"), help: "no, border, keep_ratio, keep_ratio_largest or center_crop. Default border.")
    var resizeMode: String?

    @Option(name: .customLong("image-size"), parsing: .unconditional, help: "The side the resize mode aims at: 1 to 65535. Default 256.")
    var imageSize: Int?

    @Flag(name: .customLong("resize-only-if-bigger"), help: "Leave images not larger than --image-size as they are (no resize, crop or padding).")
    var resizeOnlyIfBigger = false

    @Option(name: .customLong("border-color"), help: "The padding colour of border mode: R,G,B or #RRGGBB. Default 255,255,255 (white, as img2dataset).")
    var borderColor: String?

    @Option(name: .customLong("encode-format"), help: "jpg, png or webp. Default jpg.")
    var encodeFormat: String?

    @Option(name: .customLong("encode-quality"), parsing: .unconditional, help: "jpg 0-100, webp 0-100 (over 100: lossless), png 0-9. Default 95 (png 9).")
    var encodeQuality: Int?

    @Option(name: .customLong("min-image-size"), parsing: .unconditional, help: "Refuse images whose shorter side is under N pixels. Default 0.")
    var minImageSize: Int?

    @Option(name: .customLong("max-image-area"), parsing: .unconditional, help: "Refuse images of more than N pixels. Default no limit.")
    var maxImageArea: Double?

    @Option(name: .customLong("max-aspect-ratio"), parsing: .unconditional, help: "Refuse images whose long side over short side exceeds R. Default no limit.")
    var maxAspectRatio: Double?

    @Flag(name: .customLong("skip-reencode"), help: "Keep the downloaded bytes when the image is already in --encode-format and needs no change.")
    var skipReencode = false

    @Option(name: .customLong("per-host-concurrency"), parsing: .unconditional, help: "Requests to one host at once: 1 to 1024. Default 4.")
    var perHostConcurrency: Int?

    @Option(name: .customLong("per-host-rate"), parsing: .unconditional, help: "Requests started per second per host (e.g. 2, or 0.5). Default no limit.")
    var perHostRate: Double?

    @Option(name: .customLong("disallowed-header-directives"), help: "X-Robots-Tag directives that refuse an image, comma-separated; '' turns the check off. Default noai,noimageai,noindex,noimageindex.")
    var disallowedDirectives: String?

    @Option(name: .customLong("user-agent-token"), help: "Adds '(compatible; TOKEN)' to the User-Agent; X-Robots-Tag lines for TOKEN apply.")
    var userAgentToken: String?

    @Flag(name: .customLong("allow-file-urls"), help: "Load rows whose URL is file:… (local files). Off by default: a list from elsewhere must not read this machine's files. data: URLs always load.")
    var allowFileURLs = false

    @Option(name: .customLong("compute-hash"), help: "md5, sha256 or sha512: the downloaded bytes' digest, in a column of that name; none for no column. Default sha256.")
    var computeHash: String?

    @Option(name: .customLong("verify-hash"), help: "COLUMN,TYPE: drop a sample whose bytes' TYPE digest is not the column's ('hash mismatch'); TYPE must be --compute-hash's.")
    var verifyHash: String?

    @Flag(name: .customLong("extract-exif"), help: "Write an exif column as img2dataset does (exifread's tags as JSON). Off here; on in webimage img2dataset.")
    var extractEXIF = false

    @Flag(name: .customLong("disable-all-reencoding"), help: "Keep the downloaded bytes as they are: no decoding, size check or resize.")
    var disableAllReencoding = false

    @Option(name: .customLong("bbox-col"), help: "A column of [x0,y0,x1,y1] boxes (fractions of the image) to blur, as img2dataset's blurrer.")
    var bboxColumn: String?

    @Option(name: .customLong("upscale-interpolation"), help: "lanczos, lanczos4, bicubic, cubic (Lanczos3 here) or bilinear, linear, area, nearest (box). Default Lanczos3.")
    var upscaleInterpolation: String?

    @Option(name: .customLong("downscale-interpolation"), help: "As --upscale-interpolation, for images made smaller. Default Lanczos3.")
    var downscaleInterpolation: String?

    @Flag(name: .customLong("ignore-ssl-certificate"), help: "Accept any TLS certificate.")
    var ignoreSSLCertificate = false

    @Option(name: .customLong("oom-shard-count"), parsing: .unconditional, help: "The shard number's least digits: 1 to 18. Default 5.")
    var oomShardCount: Int?

    /// Defaults and ranges.
    static let defaultSamplesPerShard = 10_000
    static let samplesPerShardRange = 1...100_000_000
    static let imageSizeRange = 1...65_535
    static let perHostRange = 1...1024
    static let defaultPerHostConcurrency = 4

    /// Whether any of these flags was given, so `fetch` runs a ``DatasetJob``.
    var isActive: Bool {
        inputFormat != nil || urlColumn != nil || captionColumn != nil || additionalColumns != nil || outputFormat != nil
            || samplesPerShard != nil || resizeMode != nil || imageSize != nil || resizeOnlyIfBigger || borderColor != nil
            || encodeFormat != nil || encodeQuality != nil || minImageSize != nil || maxImageArea != nil
            || maxAspectRatio != nil || skipReencode || perHostConcurrency != nil || perHostRate != nil
            || disallowedDirectives != nil || userAgentToken != nil || computeHash != nil || verifyHash != nil || extractEXIF
            || disableAllReencoding || bboxColumn != nil || upscaleInterpolation != nil || downscaleInterpolation != nil
            || ignoreSSLCertificate || oomShardCount != nil
    }

    func validate() throws {
        guard isActive else { return }
        _ = try format()
        _ = try layout()
        _ = try columns()
        _ = try imageSettings()
        if let samplesPerShard {
            try NumericOption.check(samplesPerShard, "--number-sample-per-shard", in: Self.samplesPerShardRange, "a number of rows")
        }
        if let perHostConcurrency {
            try NumericOption.check(perHostConcurrency, "--per-host-concurrency", in: Self.perHostRange, "a number of requests")
        }
        if let oomShardCount { try NumericOption.check(oomShardCount, "--oom-shard-count", in: 1...18, "a number of digits") }
        if let perHostRate, !(perHostRate > 0 && perHostRate.isFinite) {
            throw ValidationError("--per-host-rate must be a positive number of requests per second; got \(perHostRate)")
        }
    }

    /// `--input-format` and the name as given (a folder's files end in `.<name>`).
    func format() throws -> (format: InputFormat, name: String) {
        let name = inputFormat ?? "txt"
        guard let format = InputFormat(argument: name) else {
            throw ValidationError("Invalid input format \(name); use \(InputFormat.names)")
        }
        return (format, name)
    }

    func layout() throws -> ShardOutput.Layout {
        let name = outputFormat ?? "files"
        guard let layout = ShardOutput.Layout(rawValue: name) else {
            throw ValidationError("Invalid output format \(name); use files, webdataset, parquet, tfrecord or dummy")
        }
        return layout
    }

    func columns() throws -> InputColumns {
        var columns = InputColumns()
        if let urlColumn { columns.url = urlColumn }
        columns.caption = captionColumn
        columns.additional = (additionalColumns ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let bboxColumn {
            columns.boxes = bboxColumn
            if !columns.additional.contains(bboxColumn) { columns.additional.append(bboxColumn) }
        }
        columns.verifyHash = try verification()?.column
        let reserved = columns.additional.filter(InputColumns.reserved.contains)
        if !reserved.isEmpty {
            throw ValidationError("--save-additional-columns cannot use \(reserved.joined(separator: ", ")): img2dataset reserves "
                + InputColumns.reserved.sorted().joined(separator: ", "))
        }
        return columns
    }

    /// `--compute-hash`: `nil` for none.
    func hash() throws -> SampleHash? {
        guard let computeHash else { return .sha256 }
        if computeHash.lowercased() == "none" { return nil }
        guard let hash = SampleHash(rawValue: computeHash) else {
            throw ValidationError("Unsupported hash to compute: \(computeHash); use md5, sha256, sha512 or none")
        }
        return hash
    }

    /// `--verify-hash COLUMN,TYPE` (or img2dataset's `["COLUMN","TYPE"]`).
    func verification() throws -> (column: String, type: SampleHash)? {
        guard let verifyHash else { return nil }
        let parts = verifyHash.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]\"' ")) }
        guard parts.count == 2, let type = SampleHash(rawValue: parts[1]) else {
            throw ValidationError("--verify-hash takes COLUMN,TYPE with TYPE md5, sha256 or sha512; got '\(verifyHash)'")
        }
        guard type == (try hash()) else {
            throw ValidationError("--verify-hash and --compute-hash must be the same but got \(type.rawValue) and "
                + ((try hash())?.rawValue ?? "none"))
        }
        return (parts[0], type)
    }

    /// A `--*-interpolation` value as the filter that runs (``SampleInterpolation``).
    private static func filter(_ name: String?, _ option: String) throws -> SampleInterpolation {
        guard let name else { return .lanczos3 }
        guard Img2DatasetOptions.interpolations.contains(name.lowercased()) else {
            throw ValidationError("Invalid option for \(option): \(name); use " + Img2DatasetOptions.interpolations.joined(separator: ", "))
        }
        return SampleInterpolation(openCVName: name)
    }

    /// The X-Robots-Tag directives: a comma list, or img2dataset's `["a","b"]` spelling.
    var directives: [String] {
        guard let disallowedDirectives else { return RobotsTag.defaultDirectives }
        return disallowedDirectives.split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]\"' "))
        }.filter { !$0.isEmpty }
    }

    func imageSettings() throws -> SampleProcessor.Settings {
        var settings = SampleProcessor.Settings()
        if let resizeMode {
            guard let mode = ResizeMode(rawValue: resizeMode) else {
                throw ValidationError("Invalid option for resize_mode: \(resizeMode); use "
                    + ResizeMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            settings.mode = mode
        }
        if let imageSize {
            try NumericOption.check(imageSize, "--image-size", in: Self.imageSizeRange, "a number of pixels")
            settings.size = imageSize
        }
        settings.onlyIfBigger = resizeOnlyIfBigger
        if let borderColor {
            guard let color = Self.parseColor(borderColor) else {
                throw ValidationError("--border-color takes R,G,B (0-255 each) or #RRGGBB; got '\(borderColor)'")
            }
            settings.borderColor = color
        }
        if let encodeFormat {
            guard let format = EncodeFormat(rawValue: encodeFormat) else {
                throw ValidationError("Invalid encode format \(encodeFormat); use jpg, png or webp")
            }
            settings.format = format
        }
        let qualityRange = settings.format == .png ? 0...9 : (settings.format == .webp ? 0...1000 : 0...100)
        if let encodeQuality {
            try NumericOption.check(encodeQuality, "--encode-quality", in: qualityRange,
                                    settings.format == .png ? "a PNG compression level" : "a quality")
            settings.quality = encodeQuality
        } else if settings.format == .png {
            settings.quality = 9
        }
        if let minImageSize {
            guard minImageSize >= 0 else { throw ValidationError("--min-image-size must be 0 or more; got \(minImageSize)") }
            settings.minImageSize = minImageSize
        }
        if let maxImageArea {
            guard maxImageArea >= 0 else { throw ValidationError("--max-image-area must be 0 or more; got \(maxImageArea)") }
            settings.maxImageArea = maxImageArea
        }
        if let maxAspectRatio {
            guard maxAspectRatio > 0 else { throw ValidationError("--max-aspect-ratio must be more than 0; got \(maxAspectRatio)") }
            settings.maxAspectRatio = maxAspectRatio
        }
        settings.skipReencode = skipReencode
        settings.disablesAllReencoding = disableAllReencoding
        settings.upscale = try Self.filter(upscaleInterpolation, "--upscale-interpolation")
        settings.downscale = try Self.filter(downscaleInterpolation, "--downscale-interpolation")
        settings.hash = try hash()
        settings.extractsEXIF = extractEXIF
        return settings
    }

    /// `R,G,B` or `#RRGGBB`.
    static func parseColor(_ text: String) -> (r: UInt8, g: UInt8, b: UInt8)? {
        if text.hasPrefix("#"), text.count == 7, let value = UInt32(text.dropFirst(), radix: 16) {
            return (UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        }
        let parts = text.split(separator: ",").map { UInt8($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 3, let r = parts[0], let g = parts[1], let b = parts[2] else { return nil }
        return (r, g, b)
    }
}
