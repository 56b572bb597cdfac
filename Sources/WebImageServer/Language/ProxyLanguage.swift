import Foundation

/// The URL language a server speaks: imgproxy's grammar under the server's settings
/// (path prefix, argument separator, presets and presets-only mode, the base URL, which
/// options and source schemes are allowed). Made once from ``ProxyConfig``; presets are
/// validated then, so a bad one stops the server at start.
public struct ProxyLanguage: Sendable {
    /// `IMGPROXY_PATH_PREFIX`: everything before the signature (no trailing `/`).
    public var pathPrefix = ""
    /// `IMGPROXY_ARGUMENTS_SEPARATOR`.
    public var separator = ":"
    public var presets = Presets()
    /// `IMGPROXY_ONLY_PRESETS`.
    public var onlyPresets = false
    /// `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`.
    public var base64URLIncludesFilename = false
    /// `IMGPROXY_BASE_URL`: prepended to sources that do not start with it.
    public var baseURL = ""
    /// `IMGPROXY_ALLOW_SECURITY_OPTIONS`.
    public var allowsSecurityOptions = false
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`; `nil` allows every option.
    public var allowedOptionNames: Set<String>?
    /// Source URL schemes fetched (http and https always; `local`, `s3` when enabled).
    public var sourceSchemes: Set<String> = ["http", "https"]

    public init() {}

    /// What of the language can change a result's bytes (presets, the base URL), for the
    /// results' fingerprint.
    var fingerprint: String {
        let presetText = presets.definitions.keys.sorted().map { name in
            name + "=" + (presets.definitions[name] ?? []).map { $0.joined(separator: ":") }.joined(separator: "/")
        }
        return "presets=\(presetText.joined(separator: ","));only=\(onlyPresets);base=\(baseURL)"
    }

    /// The option parser for one request at time `now` (for `expires`).
    var parser: OptionParser { parser(now: Int64(Date().timeIntervalSince1970)) }

    func parser(now: Int64) -> OptionParser {
        OptionParser(presets: presets, allowsSecurityOptions: allowsSecurityOptions, allowedNames: allowedOptionNames, now: now)
    }

    /// Checks the presets: each applied to empty options must parse.
    public func validate() throws(ProxyError) {
        try presets.validate(with: parser)
    }

    /// The source URL of `text`: the base URL applied, an absolute URL of an allowed
    /// scheme (or the built-in examples).
    func sourceURL(_ text: String) throws(ProxyError) -> URL {
        // The gallery's own pictures are not under the base URL (it is for sources elsewhere).
        let isExample = text.lowercased().hasPrefix(ExampleImages.scheme + "://")
        let full = !baseURL.isEmpty && !isExample && !text.hasPrefix(baseURL) ? baseURL + text : text
        let literal = full.range(of: "://").map { SourceLocation.literalSchemes.contains(full[..<$0.lowerBound].lowercased()) } ?? false
        // local:// and s3:// paths are taken literally (see SourceLocation).
        guard let url = literal ? SourceLocation.literalURL(full) : URL(string: full), let scheme = url.scheme?.lowercased() else {
            throw .badRequest("The source is not an absolute URL")
        }
        if scheme == ExampleImages.scheme { return url }
        guard sourceSchemes.contains(scheme) else {
            // Name the setting that enables it, where there is one.
            let setting = switch scheme {
            case "local": " (start it with --local-root DIR or IMGPROXY_LOCAL_FILESYSTEM_ROOT)"
            case "s3": " (start it with --use-s3 or IMGPROXY_USE_S3=true)"
            default: ""
            }
            throw .badRequest("The source scheme \(scheme.prefix(16)) is not enabled on this server" + setting)
        }
        guard scheme != "http" && scheme != "https" || url.host?.isEmpty == false else {
            throw .badRequest("The source URL has no host")
        }
        return url
    }
}
