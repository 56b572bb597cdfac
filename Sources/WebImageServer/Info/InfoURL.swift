import Foundation

/// A parsed `/info` path, imgproxy Pro's form:
///
/// ```
/// [PATH_PREFIX]/info/{signature}/{info option}/{info option}…/{source}
/// ```
///
/// The signature signs what follows it, as for images; the options are info options
/// (``InfoOptionParser``), the info `default` preset first; the source is written as for
/// images (`plain/…` or base64url), an output extension being meaningless here and ignored.
/// Runs on the request's task.
struct InfoURL: Sendable, Hashable {
    var signature: String
    /// `/` + the path after the signature.
    var signedPath: String
    var options: InfoOptions
    var source: URL

    /// The path segment that starts an info URL (after the path prefix).
    static let segment = "info"

    /// Parses `rawPath` (percent-encoded, without the query) under `language` and the
    /// info presets.
    ///
    /// - Throws: ``ProxyError``: 400 for malformed options or sources, 404 for an expired
    ///   URL or a path that is not an info URL. The signature is not checked here.
    static func parse(_ rawPath: String, language: ProxyLanguage, presets: Presets, now: Int64 = Int64(Date().timeIntervalSince1970))
        throws(ProxyError) -> InfoURL
    {
        let (signature, path) = try ProxyURL.splitSignature(rawPath, prefix: language.pathPrefix + "/" + segment)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let parser = InfoOptionParser(presets: presets, now: now, processing: language.parser(now: now))
        var options = InfoOptions()
        if presets.definitions["default"] != nil {
            try parser.applyPreset("default", to: &options, chain: [])
        }
        var sourceStart = 0
        for segment in segments {
            let pieces = ProxyURL.split(segment, by: language.separator)
            if pieces.count == 1 { break }
            try parser.apply(pieces[0], Array(pieces.dropFirst()), to: &options)
            sourceStart += 1
        }
        guard sourceStart < segments.count else { throw .badRequest("The source URL is missing") }
        let decoded = try SourceDecoding.decode(segments[sourceStart...], includesFilename: language.base64URLIncludesFilename)
        let source = try language.sourceURL(decoded.url)
        return InfoURL(signature: String(signature), signedPath: "/" + path, options: options, source: source)
    }
}
