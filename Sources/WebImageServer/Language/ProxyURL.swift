import Foundation
import WebImageCodecs

/// A parsed proxy request path, imgproxy's URL format:
///
/// ```
/// [PATH_PREFIX]/{signature}/{option}/{option}…/{source}
///   option  name:arg:arg…   (":" is IMGPROXY_ARGUMENTS_SEPARATOR)
///   source  plain/{percent-encoded URL}[@ext]  |  {base64url, may be split by "/"}[.ext][/{filename}]
/// ```
///
/// With presets-only mode the first segment after the signature is a list of preset
/// names. Parsing follows imgproxy 4 (docs/usage/processing.mdx, options/parser/url.go):
/// the first segment without a separator starts the source; the options part gets `%3A`
/// turned back into `:` and the plain source `scheme:/x` back into `scheme://x` (CDNs
/// damage both), and that repaired path is what the signature signs. Runs on the
/// request's task; allocates only what it returns.
public struct ProxyURL: Sendable, Hashable {
    /// The signature segment as sent.
    public var signature: String
    /// What the signature signs: `/` + the repaired path after the signature.
    public var signedPath: String
    public var options: ProcessingOptions
    /// The source URL, after `IMGPROXY_BASE_URL`.
    public var source: URL

    /// The longest path accepted; longer ones are refused before any work.
    public static let maxLength = 16_384

    /// Splits `text` at every occurrence of `separator` (which may be several characters).
    static func split(_ text: Substring, by separator: String) -> [Substring] {
        if separator.utf8.count == 1, let byte = separator.utf8.first, byte < 0x80 {
            return split(text, atByte: byte)
        }
        if separator.count == 1, let character = separator.first {
            return text.split(separator: character, omittingEmptySubsequences: false)
        }
        var pieces: [Substring] = []
        var rest = text
        while let range = rest.range(of: separator) {
            pieces.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        pieces.append(rest)
        return pieces
    }

    /// Splits `text` at every ASCII `byte`, empty pieces kept, by UTF-8 bytes as imgproxy (Go)
    /// splits: a `/` followed by a combining mark still separates. Splitting by `Character`
    /// walks grapheme boundaries, which cost 3 % of a cached hit's CPU.
    static func split(_ text: Substring, atByte byte: UInt8) -> [Substring] {
        text.utf8.split(separator: byte, omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The first occurrence of the ASCII text `needle` in `text`, found by UTF-8 bytes (an
    /// ASCII byte never occurs inside a multi-byte character, so the bounds are characters').
    static func asciiRange(of needle: StaticString, in text: Substring) -> Range<Substring.Index>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return nil }
        let bytes = text.utf8
        var start = bytes.startIndex
        while let found = bytes[start...].firstIndex(of: first) {
            var end = found
            var matched = 0
            while matched < pattern.count, end != bytes.endIndex, bytes[end] == pattern[matched] {
                bytes.formIndex(after: &end)
                matched += 1
            }
            if matched == pattern.count { return found..<end }
            start = bytes.index(after: found)
        }
        return nil
    }

    /// The signature segment and the repaired path after it; throws ``ProxyError/notFound``
    /// for a path that is not a proxy URL at all (no signature and path, or outside the prefix).
    static func splitSignature(_ rawPath: String, prefix: String) throws(ProxyError) -> (signature: Substring, path: String) {
        guard rawPath.utf8.count <= maxLength else { throw .badRequest("The path is longer than \(maxLength) bytes") }
        guard rawPath.hasPrefix(prefix + "/") else { throw .notFound }
        let rest = rawPath.dropFirst(prefix.count + 1)
        guard let slash = rest.firstIndex(of: "/") else { throw .notFound }
        let signature = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        guard !signature.isEmpty, !path.isEmpty else { throw .notFound }
        return (signature, repaired(path))
    }

    /// imgproxy's "re-denormalisation": `%3A` → `:` in the options part, and a plain
    /// source's `scheme:/x` (a proxy merged the slashes) → `scheme://x` (`local:///x`).
    static func repaired(_ path: Substring) -> String {
        let optionsPart: Substring, plainPart: Substring?
        if path.hasPrefix("plain/") {
            optionsPart = ""
            plainPart = path.dropFirst("plain/".count)
        } else if let range = asciiRange(of: "/plain/", in: path) {
            optionsPart = path[..<range.lowerBound]
            plainPart = path[range.upperBound...]
        } else {
            optionsPart = path
            plainPart = nil
        }
        // Searches by bytes, not Foundation's: this runs on every request, and the bridged
        // NSString searches cost about 15 µs of a 250 µs cached hit.
        let options = optionsPart.utf8.contains(UInt8(ascii: "%"))
            ? String(optionsPart.replacing("%3A", with: ":")) : String(optionsPart)
        guard var plain = plainPart.map(String.init) else { return options }
        if let colon = plain.firstIndex(of: ":") {
            let scheme = plain[..<colon]
            let after = plain[plain.index(after: colon)...]
            if !scheme.isEmpty, !scheme.contains(where: \.isWhitespace), after.hasPrefix("/"), !after.hasPrefix("//") {
                plain = String(scheme) + (scheme == "local" ? ":///" : "://") + after.dropFirst()
            }
        }
        return (options.isEmpty ? "" : options + "/") + "plain/" + plain
    }

    /// Parses a request path (raw, still percent-encoded, without the query) under `language`.
    ///
    /// - Parameters:
    ///   - rawPath: the request path, still percent-encoded, without the query.
    ///   - language: the server's URL settings (path prefix, separator, presets).
    ///   - defaults: options already set before the URL's (client hints).
    /// - Throws: ``ProxyError``: 400 for malformed options or sources, 403 for security
    ///   options on a server that does not allow them, 404 for an expired URL or a path
    ///   that is no proxy URL. The signature is not checked here (see ``ImageProxy``).
    public static func parse(_ rawPath: String, language: ProxyLanguage, defaults: ProcessingOptions = ProcessingOptions())
        throws(ProxyError) -> ProxyURL
    {
        let (signature, path) = try splitSignature(rawPath, prefix: language.pathPrefix)
        let segments = split(Substring(path), atByte: UInt8(ascii: "/"))
        let parser = language.parser
        var options = defaults
        if language.presets.definitions["default"] != nil {
            try language.presets.apply("default", to: &options, parser: parser, chain: [])
        }
        var sourceStart = 0
        if language.onlyPresets {
            guard segments.count > 1 else { throw .badRequest("Expected /{signature}/{presets}/{source}") }
            for name in split(segments[0], by: language.separator) where !name.isEmpty {
                try language.presets.apply(String(name), to: &options, parser: parser, chain: [])
            }
            sourceStart = 1
        } else {
            if ProcessingOptions.ResizingType(rawValue: String(segments[0])) != nil {
                throw .badRequest("The basic URL format (/{type}/{width}/…) is not supported: use rs:{type}:{width}:{height}")
            }
            for segment in segments {
                let pieces = split(segment, by: language.separator)
                if pieces.count == 1 { break }
                try parser.applyURLOption(pieces[0], Array(pieces.dropFirst()), to: &options)
                sourceStart += 1
            }
        }
        let decoded = try SourceDecoding.decode(
            segments[sourceStart...], includesFilename: language.base64URLIncludesFilename)
        if let ext = decoded.ext, !options.raw {
            guard let format = OptionParser.formatNames[ext] else {
                throw .badRequest("Unknown output extension .\(ext.prefix(16))")
            }
            options.format = format
        }
        let source = try language.sourceURL(decoded.url)
        return ProxyURL(signature: String(signature), signedPath: "/" + path, options: options, source: source)
    }
}
