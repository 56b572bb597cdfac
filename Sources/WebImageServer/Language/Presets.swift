/// Named option lists (imgproxy's presets, docs/usage/presets.mdx): `name=option/option…`
/// from `--preset` (repeatable), `--presets-file` / `IMGPROXY_PRESETS_PATH` (one per line,
/// `#` comments) and `IMGPROXY_PRESETS` (comma-separated). The `default` preset, when
/// defined, applies to every request before the URL's options; `preset:a:b` in a URL (or
/// inside a preset) expands in place, so later options override earlier ones. A preset
/// already being expanded is skipped, so recursive presets terminate.
///
/// Definitions are parsed and tried once at start: a malformed one stops the server with
/// the reason, as imgproxy does.
public struct Presets: Sendable, Hashable {
    /// Name → its `name:arg…` segments.
    public private(set) var definitions: [String: [[Substring]]] = [:]

    public init() {}

    /// Parses `name=value` lines (blank lines and `#` comments skipped), each value `/`-
    /// separated option segments with `separator` between name and arguments. Later
    /// definitions of a name replace earlier ones.
    ///
    /// - Throws: ``ProxyError`` (400) naming the bad entry.
    public init(entries: [String], separator: String = ":") throws(ProxyError) {
        for raw in entries {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty || entry.hasPrefix("#") { continue }
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .badRequest("Preset \"\(entry.prefix(40))\": expected name=options") }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !value.isEmpty else { throw .badRequest("Preset \"\(entry.prefix(40))\": empty name or options") }
            var segments: [[Substring]] = []
            for segment in value.split(separator: "/", omittingEmptySubsequences: false) {
                let pieces = ProxyURL.split(Substring(segment), by: separator)
                guard pieces.count > 1 else {
                    throw .badRequest("Preset \(name): \"\(segment.prefix(32))\" is not name\(separator)arguments")
                }
                segments.append(pieces)
            }
            definitions[name] = segments
        }
    }

    public var isEmpty: Bool { definitions.isEmpty }

    /// Adds `other`'s presets, replacing presets of the same names.
    public mutating func merge(_ other: Presets) {
        definitions.merge(other.definitions) { $1 }
    }

    /// Applies preset `name` (and the presets it names) to `options`.
    func apply(_ name: String, to options: inout ProcessingOptions, parser: OptionParser, chain: [String]) throws(ProxyError) {
        guard let segments = definitions[name] else { throw .badRequest("Unknown preset \(name.prefix(40))") }
        if chain.contains(name) { return }
        options.usedPresets.append(name)
        for segment in segments {
            try parser.apply(segment[0], Array(segment.dropFirst()), to: &options, chain: chain + [name])
        }
    }

    /// Tries every preset on empty options: start-up validation. The error names the preset.
    func validate(with parser: OptionParser) throws(ProxyError) {
        for name in definitions.keys.sorted() {
            var options = ProcessingOptions()
            do {
                try apply(name, to: &options, parser: parser, chain: [])
            } catch {
                var named = error
                named.message = "Preset \(name.prefix(40)): \(error.message)"
                throw named
            }
        }
    }
}
