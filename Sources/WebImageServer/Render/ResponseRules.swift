import Foundation
import WebImage
import WebImageCodecs

/// The headers of an image answer, as imgproxy writes them (its headers writer): 
/// `Cache-Control: max-age=N, public` (the server's TTL, capped by the URL's `expires`,
/// or the source's own with `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`; `immutable` added for
/// signed URLs, which never change for their key), `Content-Disposition` (the `filename`
/// or the source's last path component, the result's extension, `inline` or
/// `attachment`), `Vary` (`Accept` when the format may follow it; the client-hint headers
/// when hints are on), plus our ETag and `Last-Modified`.
struct ResponseRules: Sendable {
    var config: ProxyConfig
    var options: ProcessingOptions
    var source: URL
    var signed: Bool
    var varyAccept: Bool
    var clientHints: Bool

    /// `Cache-Control` for a result whose source said `sourceCacheControl`.
    func cacheControl(sourceCacheControl: String?, now: Date = Date()) -> String {
        var maxAge = config.maxAge
        if let expires = options.expires, expires > 0 {
            let left = Int(max(0, Double(expires) - now.timeIntervalSince1970))
            if left < maxAge { maxAge = left }
            if maxAge <= 0 { return "no-cache" }
            return "max-age=\(maxAge), public"
        }
        if config.output.cacheControlPassthrough, let sourceCacheControl { return sourceCacheControl }
        guard maxAge > 0 else { return "no-cache" }
        return "max-age=\(maxAge), public" + (signed ? ", immutable" : "")
    }

    /// `Content-Disposition` for a result in `format`.
    func contentDisposition(format: ImageFormat) -> String {
        var stem = options.filename ?? ""
        if stem.isEmpty {
            let last = source.lastPathComponent
            stem = last.isEmpty || last == "/" ? "" : (last as NSString).deletingPathExtension
        }
        if stem.isEmpty { stem = "image" }
        stem = stem.replacingOccurrences(of: "\"", with: "%22")
        let ext = format == .jpeg ? "jpg" : format.fileExtension
        let attachment = options.returnAttachment || config.output.returnAttachment
        return (attachment ? "attachment" : "inline") + "; filename=\"\(stem).\(ext)\""
    }

    /// `Vary`, or `nil`.
    var vary: String? {
        var fields: [String] = []
        if varyAccept { fields.append("Accept") }
        if clientHints { fields.append(contentsOf: ["Sec-CH-DPR", "DPR", "Sec-CH-Width", "Width"]) }
        return fields.isEmpty ? nil : fields.joined(separator: ", ")
    }

    /// The source's caching header for passthrough: its `Cache-Control`, else its
    /// `Expires` when in the future, as `max-age=N, public`.
    static func passthroughCacheControl(_ source: OriginalData) -> String? {
        if let value = source.cacheControl, !value.isEmpty { return value }
        guard let expires = source.expires.flatMap(HTTPDateFormat.parse) else { return nil }
        let left = Int(expires.timeIntervalSinceNow)
        return left > 0 ? "max-age=\(left), public" : nil
    }
}
