import Foundation

/// Where a source's bytes come from, read from its URL as imgproxy reads it: the built-in
/// examples, an http(s) URL, a file under the local root, or an S3 object.
///
/// For `local://` and `s3://` the text after the host is taken literally (imgproxy
/// protects `%`, `?` and `#` before parsing, so nothing is percent-decoded twice: a
/// base64 source `local:///a%20b.png` names the file `a%20b.png`), leading slashes are
/// dropped, and the text after the first query separator (`?`, or
/// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`) is the S3 version id (ignored for local files).
/// The host of a `local://` URL is ignored, as in imgproxy: `local://x/a.png` is `a.png`.
enum SourceLocation: Sendable, Hashable {
    case example(URL)
    case http(URL)
    /// A path under the local root, without leading slashes, not yet resolved.
    case local(String)
    case s3(bucket: String, key: String, versionID: String?)

    /// The schemes whose path is taken literally.
    static let literalSchemes: Set<String> = ["local", "s3"]

    /// The location of `url` (made by ``ProxyLanguage/sourceURL(_:)``).
    ///
    /// - Throws: 400 for a local path or S3 key that is empty, or an S3 URL without a bucket.
    init(_ url: URL, querySeparator: String = "?") throws(ProxyError) {
        switch url.scheme?.lowercased() {
        case ExampleImages.scheme?:
            self = .example(url)
        case "local"?:
            let (key, _) = Self.literalPath(url, separator: querySeparator)
            guard !key.isEmpty else { throw .badRequest("The local source names no file") }
            self = .local(key)
        case "s3"?:
            let (key, version) = Self.literalPath(url, separator: querySeparator)
            guard let bucket = url.host, !bucket.isEmpty, !key.isEmpty else {
                throw .badRequest("An S3 source is s3://bucket/key")
            }
            self = .s3(bucket: bucket, key: key, versionID: version.flatMap { $0.isEmpty ? nil : $0 })
        default:
            self = .http(url)
        }
    }

    /// The path as written (one level of the escaping ``ProxyLanguage`` added undone),
    /// without leading slashes, split at the query separator.
    private static func literalPath(_ url: URL, separator: String) -> (String, String?) {
        let encoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let text = encoded.removingPercentEncoding ?? encoded
        let path = String(text.drop { $0 == "/" })
        guard !separator.isEmpty, let cut = path.range(of: separator) else { return (path, nil) }
        return (String(path[..<cut.lowerBound]), String(path[cut.upperBound...]))
    }

    /// `text` (`local://…` or `s3://…`) as a URL whose path, once decoded, is `text`'s
    /// path character for character: `%`, `?`, `#` and everything a URL cannot hold
    /// escaped. `nil` when the host part is not a valid URL host.
    static func literalURL(_ text: String) -> URL? {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%?#;")
        guard let path = String(rest[slash...]).addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
        return URL(string: String(text[..<schemeEnd.upperBound]) + rest[..<slash] + path)
    }
}
