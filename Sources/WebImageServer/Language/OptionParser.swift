import WebImageCodecs

/// Applies imgproxy's processing options, one `name:arg:arg…` segment at a time, to
/// ``ProcessingOptions``: every open-source option of imgproxy's `docs/usage/processing.mdx`
/// under its long and short names, with imgproxy's argument rules (arguments may be
/// omitted where imgproxy allows it; a later option overrides an earlier one key by key).
///
/// Differences from imgproxy, on purpose: a malformed or unknown option is **400** with a
/// JSON error naming it (imgproxy: 404 "Invalid URL"); an imgproxy Pro option is 400 with
/// a message saying so; infinities and NaN are refused as numbers; negative `rotate`
/// multiples are normalised (`-90` is `270`) and a negative `trim` threshold is refused
/// (imgproxy fails with 500 on both); `watermark`'s scale 0 means "own size", as imgproxy's
/// documentation says (imgproxy 4's code refuses it).
struct OptionParser: Sendable {
    let presets: Presets
    /// `IMGPROXY_ALLOW_SECURITY_OPTIONS`.
    let allowsSecurityOptions: Bool
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`: names a URL may use (presets are not checked).
    let allowedNames: Set<String>?
    /// Unix time now, for `expires`.
    let now: Int64

    /// The format names options and extensions accept.
    static let formatNames: [String: ImageFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "png": .png, "webp": .webp, "avif": .avif, "gif": .gif, "ico": .ico, "svg": .svg,
        "heic": .heic, "bmp": .bmp, "tiff": .tiff, "jxl": .jxl,
    ]

    /// imgproxy Pro's options, answered with a message that says so.
    static let proOptions: Set<String> = [
        "resizing_algorithm", "ra", "objects_position", "obj_pos", "op", "crop_aspect_ratio", "crop_ar", "car",
        "background_alpha", "bga", "adjust", "a", "brightness", "br", "contrast", "co", "saturation", "sa",
        "monochrome", "mc", "duotone", "dt", "unsharp_masking", "ush", "blur_areas", "ba", "progressive_blur", "pbl",
        "blur_detections", "bd", "draw_detections", "dd", "crop_objects", "colorize", "col", "gradient", "gr",
        "watermark_url", "wmu", "watermark_text", "wmt", "watermark_size", "wms", "watermark_rotate", "wm_rot", "wmr",
        "watermark_shadow", "wmsh", "style", "st", "dpi", "color_profile", "cp", "icc", "autoquality", "aq",
        "jpeg_options", "jpgo", "png_options", "pngo", "webp_options", "webpo", "avif_options", "avifo", "page", "pg",
        "pages", "pgs", "disable_animation", "da", "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk",
        "video_thumbnail_tile", "vtt", "video_thumbnail_animation", "vta", "fallback_image_url", "fiu",
        "bypass_cache", "bc", "cache_tags", "ct", "hashsum", "hs", "gif_options",
    ]

    /// Applies the URL option `name` with `args` (the allowlist of option names applies).
    func applyURLOption(_ name: Substring, _ args: [Substring], to options: inout ProcessingOptions) throws(ProxyError) {
        if let allowedNames, !allowedNames.contains(String(name)) {
            throw .badRequest("\(name.prefix(32)): not an allowed option on this server")
        }
        try apply(name, args, to: &options, chain: [])
    }

    /// Applies one option; `chain` holds the presets being expanded (recursion guard).
    func apply(_ name: Substring, _ args: [Substring], to o: inout ProcessingOptions, chain: [String]) throws(ProxyError) {
        typealias A = OptionArguments
        let maxSide = ProcessingOptions.maxSide
        switch name {
        case "resize", "rs":
            try A.arity(args, name, 1...8)
            if !args[0].isEmpty { o.resizingType = try resizingType(args[0], name) }
            if args.count > 1 { try applySize(Array(args.dropFirst()), name, to: &o) }
        case "size", "s":
            try A.arity(args, name, 1...7)
            try applySize(args, name, to: &o)
        case "resizing_type", "rt":
            try A.arity(args, name, 1...1)
            o.resizingType = try resizingType(args[0], name)
        case "width", "w":
            try A.arity(args, name, 1...1)
            o.width = try A.int(args[0], name, 0...maxSide)
        case "height", "h":
            try A.arity(args, name, 1...1)
            o.height = try A.int(args[0], name, 0...maxSide)
        case "min-width", "mw":
            try A.arity(args, name, 1...1)
            o.minWidth = try A.int(args[0], name, 0...maxSide)
        case "min-height", "mh":
            try A.arity(args, name, 1...1)
            o.minHeight = try A.int(args[0], name, 0...maxSide)
        case "zoom", "z":
            try A.arity(args, name, 1...2)
            o.zoomX = try A.positive(args[0], name)
            o.zoomY = args.count > 1 ? try A.positive(args[1], name) : o.zoomX
        case "dpr":
            try A.arity(args, name, 1...1)
            o.dpr = try A.positive(args[0], name)
        case "enlarge", "el":
            try A.arity(args, name, 1...1)
            o.enlarge = A.bool(args[0])
        case "extend", "ex":
            o.extend = try extend(args, name, current: o.extend)
        case "extend_aspect_ratio", "extend_ar", "exar":
            o.extendAspectRatio = try extend(args, name, current: o.extendAspectRatio)
        case "gravity", "g":
            o.gravity = try gravity(args, name, current: o.gravity, allowSmart: true)
        case "crop", "c":
            try A.arity(args, name, 1...5)
            let width = try A.number(args[0], name, 0...Double(maxSide))
            let height = args.count > 1 ? try A.number(args[1], name, 0...Double(maxSide)) : 0
            let own = args.count > 2 ? try gravity(Array(args.dropFirst(2)), name, current: Gravity(), allowSmart: true) : nil
            o.crop = ProcessingOptions.Crop(width: width, height: height, gravity: own)
        case "trim", "t":
            try A.arity(args, name, 1...4)
            if args[0].isEmpty {
                o.trim = nil  // imgproxy 4: an empty threshold turns trimming off
                return
            }
            var trim = ProcessingOptions.Trim(threshold: try A.number(args[0], name, 0...255))
            if args.count > 1, !args[1].isEmpty { trim.color = try A.hexColor(args[1], name) }
            if args.count > 2, !args[2].isEmpty { trim.equalHorizontal = A.bool(args[2]) }
            if args.count > 3, !args[3].isEmpty { trim.equalVertical = A.bool(args[3]) }
            o.trim = trim
        case "padding", "pd":
            try A.arity(args, name, 1...4)
            try applyPadding(args, name, to: &o.padding)
        case "auto_rotate", "ar":
            try A.arity(args, name, 1...1)
            o.autoRotate = A.bool(args[0])
        case "rotate", "rot":
            try A.arity(args, name, 1...1)
            let angle = try A.int(args[0], name, -1_000_000...1_000_000)
            guard angle % 90 == 0 else { throw .badRequest("\(name): the angle must be a multiple of 90") }
            o.rotate = ((angle % 360) + 360) % 360
        case "flip", "fl":
            try A.arity(args, name, 1...2)
            if !args[0].isEmpty { o.flipHorizontal = A.bool(args[0]) }
            if args.count > 1, !args[1].isEmpty { o.flipVertical = A.bool(args[1]) }
        case "background", "bg":
            switch args.count {
            case 1 where args[0].isEmpty: o.background = nil
            case 1: o.background = try A.hexColor(args[0], name)
            case 3:
                o.background = RGBA(r: try A.channel(args[0], name), g: try A.channel(args[1], name),
                                    b: try A.channel(args[2], name))
            default: throw .badRequest("\(name): takes R:G:B or a hex colour")
            }
        case "blur", "bl":
            try A.arity(args, name, 1...1)
            o.blur = try A.number(args[0], name, 0...1000)
        case "sharpen", "sh":
            try A.arity(args, name, 1...1)
            o.sharpen = try A.number(args[0], name, 0...1000)
        case "pixelate", "pix":
            try A.arity(args, name, 1...1)
            o.pixelate = try A.int(args[0], name, 0...maxSide)
        case "watermark", "wm":
            try A.arity(args, name, 1...7)
            let opacity = try A.number(args[0], name, 0...1)
            var watermark = ProcessingOptions.Watermark(opacity: opacity)
            if args.count > 1, !args[1].isEmpty {
                guard let kind = Gravity.Kind(rawValue: String(args[1])),
                      Gravity.Kind.anchors.contains(kind) || kind == .replicate
                else { throw .badRequest("\(name): position \"\(args[1].prefix(8))\" is not one of ce no so ea we noea nowe soea sowe re") }
                watermark.position = kind
            }
            if args.count > 2, !args[2].isEmpty { watermark.x = try A.number(args[2], name, -1e6...1e6) }
            if args.count > 3, !args[3].isEmpty { watermark.y = try A.number(args[3], name, -1e6...1e6) }
            if args.count > 4, !args[4].isEmpty { watermark.scale = try A.number(args[4], name, 0...1e6) }
            o.watermark = watermark
        case "strip_metadata", "sm":
            try A.arity(args, name, 1...1)
            o.stripMetadata = A.bool(args[0])
        case "keep_copyright", "kcr":
            try A.arity(args, name, 1...1)
            o.keepCopyright = A.bool(args[0])
        case "strip_color_profile", "scp":
            try A.arity(args, name, 1...1)
            o.stripColorProfile = A.bool(args[0])
        case "preserve_hdr", "ph":
            try A.arity(args, name, 1...1)
            o.preserveHDR = A.bool(args[0])
        case "enforce_thumbnail", "eth":
            try A.arity(args, name, 1...1)
            o.enforceThumbnail = A.bool(args[0])
        case "quality", "q":
            try A.arity(args, name, 1...1)
            o.quality = try A.int(args[0], name, 0...100)
        case "format_quality", "fq":
            guard !args.isEmpty, args.count % 2 == 0, !(args.count == 1 && args[0].isEmpty) else {
                throw .badRequest("\(name): takes format:quality pairs")
            }
            for pair in stride(from: 0, to: args.count, by: 2) {
                o.formatQuality[try format(args[pair], name)] = try A.int(args[pair + 1], name, 0...100)
            }
        case "max_bytes", "mb":
            try A.arity(args, name, 1...1)
            o.maxBytes = try A.int(args[0], name, 0...Int(Int32.max))
        case "format", "f", "ext":
            try A.arity(args, name, 1...1)
            o.format = try format(args[0], name)
        case "skip_processing", "skp":
            guard !args.isEmpty, !args.contains(where: \.isEmpty) else { throw .badRequest("\(name): takes format names") }
            for arg in args { o.skipProcessing.insert(try format(arg, name)) }
        case "raw":
            try A.arity(args, name, 1...1)
            o.raw = A.bool(args[0])
        case "cachebuster", "cb":
            try A.arity(args, name, 1...1)
            o.cachebuster = args[0].isEmpty ? nil : String(args[0])
        case "expires", "exp":
            try A.arity(args, name, 1...1)
            let time = try A.int64(args[0], name)
            if time > 0 && time < now { throw .expired }
            o.expires = time
        case "filename", "fn":
            try A.arity(args, name, 1...2)
            o.filename = try filename(args, name)
        case "return_attachment", "att":
            try A.arity(args, name, 1...1)
            o.returnAttachment = A.bool(args[0])
        case "preset", "pr":
            guard !args.isEmpty else { throw .badRequest("\(name): takes preset names") }
            for preset in args { try presets.apply(String(preset), to: &o, parser: self, chain: chain) }
        case "max_src_resolution", "msr":
            try security(name, args)
            o.maxSourceResolution = Int(try A.number(args[0], name, 0...1e6) * 1_000_000)
        case "max_src_file_size", "msfs":
            try security(name, args)
            o.maxSourceFileSize = try A.int(args[0], name, 0...Int(Int64.max / 2))
        case "max_animation_frames", "maf":
            try security(name, args)
            o.maxAnimationFrames = try A.int(args[0], name, 1...1_000_000)
        case "max_animation_frame_resolution", "mafr":
            try security(name, args)
            o.maxAnimationFrameResolution = Int(try A.number(args[0], name, 0...1e6) * 1_000_000)
        case "max_result_dimension", "mrd":
            try security(name, args)
            o.maxResultDimension = try A.int(args[0], name, Int(Int32.min)...Int(Int32.max))
        default:
            if Self.proOptions.contains(String(name)) {
                throw .badRequest("\(name): an imgproxy Pro option, which this server does not support")
            }
            throw .badRequest("Unknown option \(name.prefix(32))")
        }
    }

    // MARK: Pieces shared by several options

    private func resizingType(_ text: Substring, _ option: Substring) throws(ProxyError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: String(text)) else {
            throw .badRequest("\(option): resizing type \"\(text.prefix(16))\" is not one of fit fill fill-down force auto")
        }
        return type
    }

    /// `size`'s arguments: width, height, enlarge, then extend's (from the 4th on).
    private func applySize(_ args: [Substring], _ option: Substring, to o: inout ProcessingOptions) throws(ProxyError) {
        let maxSide = ProcessingOptions.maxSide
        if !args[0].isEmpty { o.width = try OptionArguments.int(args[0], option, 0...maxSide) }
        if args.count > 1, !args[1].isEmpty { o.height = try OptionArguments.int(args[1], option, 0...maxSide) }
        if args.count > 2, !args[2].isEmpty { o.enlarge = OptionArguments.bool(args[2]) }
        if args.count > 3, !args[3].isEmpty { o.extend = try extend(Array(args.dropFirst(3)), option, current: o.extend) }
    }

    /// `extend:bool:gravity:x:y` (no smart, no tiling).
    private func extend(
        _ args: [Substring], _ option: Substring, current: ProcessingOptions.Extend
    ) throws(ProxyError) -> ProcessingOptions.Extend {
        try OptionArguments.arity(args, option, 1...4)
        var extend = current
        extend.isEnabled = OptionArguments.bool(args[0])
        if args.count > 1 {
            extend.gravity = try gravity(Array(args.dropFirst()), option, current: extend.gravity, allowSmart: false)
        }
        return extend
    }

    /// `type:x:y` for gravity, crop and extend. Empty offsets keep the current ones.
    private func gravity(_ args: [Substring], _ option: Substring, current: Gravity, allowSmart: Bool) throws(ProxyError) -> Gravity {
        guard let first = args.first, let kind = Gravity.Kind(rawValue: String(first)) else {
            throw .badRequest("\(option): gravity \"\(args.first?.prefix(8) ?? "")\" is not one of ce no so ea we noea nowe soea sowe sm fp")
        }
        switch kind {
        case .smart:
            guard allowSmart else { throw .badRequest("\(option): smart gravity is not allowed here") }
            guard args.count == 1 else { throw .badRequest("\(option): sm takes no offsets") }
            return Gravity(kind: .smart)
        case .focusPoint:
            guard args.count == 3 else { throw .badRequest("\(option): fp takes x and y, each from 0 to 1") }
            return Gravity(kind: .focusPoint, x: try OptionArguments.number(args[1], option, 0...1),
                           y: try OptionArguments.number(args[2], option, 0...1))
        case .replicate:
            throw .badRequest("\(option): re is a watermark position, not a gravity")
        default:
            guard args.count <= 3 else { throw .badRequest("\(option): a gravity takes at most x and y offsets") }
            var gravity = current.kind == .smart || current.kind == .focusPoint ? Gravity() : current
            gravity.kind = kind
            if args.count > 1, !args[1].isEmpty { gravity.x = try OptionArguments.number(args[1], option, -1e6...1e6) }
            if args.count > 2, !args[2].isEmpty { gravity.y = try OptionArguments.number(args[2], option, -1e6...1e6) }
            return gravity
        }
    }

    /// CSS order: `pd:10` all sides, `pd:10:20` vertical:horizontal, `pd:10:20:30` top:sides:bottom.
    private func applyPadding(_ args: [Substring], _ option: Substring, to padding: inout ProcessingOptions.Padding) throws(ProxyError) {
        func side(_ index: Int) throws(ProxyError) -> Int? {
            guard index < args.count, !args[index].isEmpty else { return nil }
            return try OptionArguments.int(args[index], option, 0...ProcessingOptions.maxSide)
        }
        let top = try side(0), right = try side(1), bottom = try side(2), left = try side(3)
        if let top { padding.top = top }
        if let right { padding.right = right } else if let top { padding.right = top }
        if let bottom { padding.bottom = bottom } else if let top { padding.bottom = top }
        if let left { padding.left = left } else if let right { padding.left = right } else if let top { padding.left = top }
    }

    private func format(_ text: Substring, _ option: Substring) throws(ProxyError) -> ImageFormat {
        guard let format = Self.formatNames[String(text)] else {
            throw .badRequest("\(option): \"\(text.prefix(16))\" is not a format (jpg png webp avif gif ico svg heic bmp tiff jxl)")
        }
        return format
    }

    /// `filename:name[:encoded]`: plain, or URL-safe base64 when the second argument is true.
    private func filename(_ args: [Substring], _ option: Substring) throws(ProxyError) -> String? {
        guard !args[0].isEmpty else { return nil }
        guard args.count > 1, OptionArguments.bool(args[1]) else { return String(args[0]) }
        guard let bytes = SourceDecoding.base64URL(args[0]), let name = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest("\(option): the encoded file name is not base64url of UTF-8 text")
        }
        return name
    }

    /// Security options need the server's permission (imgproxy: 403) and one argument.
    private func security(_ option: Substring, _ args: [Substring]) throws(ProxyError) {
        guard allowsSecurityOptions else { throw .securityOptionNotAllowed(String(option)) }
        try OptionArguments.arity(args, option, 1...1)
    }
}
