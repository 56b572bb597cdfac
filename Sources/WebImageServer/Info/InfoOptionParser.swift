import WebImageCodecs

/// Applies imgproxy Pro's info options (docs/usage/getting_info.mdx), one
/// `name:arg:arg…` segment at a time, with imgproxy's names, short names, argument forms
/// and defaults:
///
/// | option | short | arguments | default |
/// | --- | --- | --- | --- |
/// | `size` | `s` | bool | on |
/// | `format` | `f` | bool | on |
/// | `dimensions` | `d` | bool | on |
/// | `exif` | | enabled:canonical_names | on, titles |
/// | `iptc` | | bool | on |
/// | `xmp` | | bool | on |
/// | `pages_number` | `pn` | bool | off |
/// | `alpha` | `a` | alpha:check_transparency | off |
/// | `crop` | `c` | width:height:gravity (as processing's `crop`) | off |
/// | `palette` | `p` | colours: 0, or 2…256 | 0 |
/// | `average` | `avg` | average:ignore_transparent | off, ignore |
/// | `dominant_colors` | `dc` | dominant_colors:build_missed | off |
/// | `blurhash` | `bh` | x_components:y_components, 0…9 each | 0:0 (off) |
/// | `thumb_hash` | `thumbhash`, `th` | bool | off |
/// | `page` | `pg` | frame, 0-based | 0 |
/// | `cachebuster` | `cb` | text | — |
/// | `expires` | `exp` | Unix time (past: 404) | — |
/// | `preset` | `pr` | names of info presets | — |
///
/// plus `icc_profile`/`icc` (ours, off). Booleans are Go's (`1 t T TRUE true True`);
/// a malformed argument or an unknown option is 400 naming it; imgproxy Pro's options
/// this server does not compute (video, object detection, classification, hashes,
/// colour space, bands, sample format…) are 400 saying so.
struct InfoOptionParser: Sendable {
    let presets: Presets
    /// Unix time now, for `expires`.
    let now: Int64
    /// The processing option parser, for `crop`'s arguments.
    let processing: OptionParser

    /// imgproxy Pro's info options this server does not support.
    static let unsupported: Set<String> = [
        "video_meta", "vm", "detect_objects", "do", "classify", "cl", "colorspace", "cs", "bands", "b",
        "sample_format", "sf", "objects_position", "obj_pos", "op", "perceptual_hash", "phash", "ph",
        "calc_hashsums", "chs", "hashsum", "hs", "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk",
        "bypass_cache", "bc", "cache_tags", "ct", "max_src_resolution", "msr", "max_src_file_size", "msfs",
    ]

    /// Every option name this parser accepts (long and short), for the documentation test.
    static let names = [
        "size", "s", "format", "f", "dimensions", "d", "exif", "iptc", "xmp", "pages_number", "pn", "alpha", "a",
        "icc_profile", "icc", "crop", "c", "palette", "p", "average", "avg", "dominant_colors", "dc", "blurhash", "bh",
        "thumb_hash", "thumbhash", "th", "page", "pg", "cachebuster", "cb", "expires", "exp", "preset", "pr",
    ]

    /// Applies one option; `chain` holds the presets being expanded (recursion guard).
    func apply(_ name: Substring, _ args: [Substring], to o: inout InfoOptions, chain: [String] = []) throws(ProxyError) {
        typealias A = OptionArguments
        switch name {
        case "size", "s":
            try A.arity(args, name, 1...1)
            o.info.size = A.bool(args[0])
        case "format", "f":
            try A.arity(args, name, 1...1)
            o.info.format = A.bool(args[0])
        case "dimensions", "d":
            try A.arity(args, name, 1...1)
            o.info.dimensions = A.bool(args[0])
        case "exif":
            try A.arity(args, name, 1...2)
            o.info.exif = A.bool(args[0])
            if args.count > 1 { o.info.exifCanonicalNames = A.bool(args[1]) }
        case "iptc":
            try A.arity(args, name, 1...1)
            o.info.iptc = A.bool(args[0])
        case "xmp":
            try A.arity(args, name, 1...1)
            o.info.xmp = A.bool(args[0])
        case "pages_number", "pn":
            try A.arity(args, name, 1...1)
            o.info.pagesNumber = A.bool(args[0])
        case "alpha", "a":
            try A.arity(args, name, 1...2)
            o.info.alpha = A.bool(args[0])
            o.info.checkTransparency = o.info.alpha && args.count > 1 && A.bool(args[1])
        case "icc_profile", "icc":
            try A.arity(args, name, 1...1)
            o.info.iccProfile = A.bool(args[0])
        case "crop", "c":
            var carrier = ProcessingOptions()
            try processing.apply("crop", args, to: &carrier, chain: [])
            o.crop = carrier.crop
            if let crop = o.crop, crop.width == 0 && crop.height == 0 { o.crop = nil }
        case "palette", "p":
            try A.arity(args, name, 1...1)
            let colors = try A.int(args[0], name, 0...256)
            guard colors != 1 else { throw .badRequest("\(name): a palette has 0 (off) or 2 to 256 colours") }
            o.info.palette = colors
        case "average", "avg":
            try A.arity(args, name, 1...2)
            o.info.average = A.bool(args[0])
            if args.count > 1 { o.info.averageIgnoresTransparent = A.bool(args[1]) }
        case "dominant_colors", "dc":
            try A.arity(args, name, 1...2)
            o.info.dominantColors = A.bool(args[0])
            if args.count > 1 { o.info.buildMissedColors = A.bool(args[1]) }
        case "blurhash", "bh":
            try A.arity(args, name, 2...2)
            let x = try A.int(args[0], name, 0...9), y = try A.int(args[1], name, 0...9)
            o.info.blurHash = x > 0 && y > 0 ? ImageInfo.Components(x: x, y: y) : nil
        case "thumb_hash", "thumbhash", "th":
            try A.arity(args, name, 1...1)
            o.info.thumbHash = A.bool(args[0])
        case "page", "pg":
            try A.arity(args, name, 1...1)
            o.info.page = try A.int(args[0], name, 0...1_000_000)
        case "cachebuster", "cb":
            try A.arity(args, name, 1...1)
            o.cachebuster = args[0].isEmpty ? nil : String(args[0])
        case "expires", "exp":
            try A.arity(args, name, 1...1)
            let time = try A.int64(args[0], name)
            if time > 0 && time < now { throw .expired }
            o.expires = time
        case "preset", "pr":
            guard !args.isEmpty else { throw .badRequest("\(name): takes preset names") }
            for preset in args { try applyPreset(String(preset), to: &o, chain: chain) }
        default:
            if Self.unsupported.contains(String(name)) {
                throw .badRequest("\(name.prefix(32)): an imgproxy Pro info option this server does not support")
            }
            throw .badRequest("Unknown info option \(name.prefix(32))")
        }
    }

    /// Applies info preset `name` (and the presets it names); a preset already being
    /// expanded is skipped, so recursive presets end.
    func applyPreset(_ name: String, to o: inout InfoOptions, chain: [String]) throws(ProxyError) {
        guard let segments = presets.definitions[name] else { throw .badRequest("Unknown info preset \(name.prefix(40))") }
        if chain.contains(name) { return }
        o.usedPresets.append(name)
        for segment in segments {
            try apply(segment[0], Array(segment.dropFirst()), to: &o, chain: chain + [name])
        }
    }

    /// Tries every info preset on default options: start-up validation.
    func validatePresets() throws(ProxyError) {
        for name in presets.definitions.keys.sorted() {
            var options = InfoOptions()
            try applyPreset(name, to: &options, chain: [])
        }
    }
}
