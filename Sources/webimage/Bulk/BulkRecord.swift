import Foundation
import WebImage

/// How one URL of a bulk job ended: its manifest line and its `--json` line.
struct BulkRecord: Sendable {
    /// 0-based index among the list's URLs (blank lines and comments not counted).
    var index: Int
    /// The line's text as given.
    var url: String
    var error: WebImageError?
    /// The HTTP status of the last response, when there was one.
    var status: Int?
    var cacheType: ImageCacheType?
    /// The source image's format and the delivered size (the thumbnail's with `--thumbnail`).
    var format: ImageFormat?
    var width = 0
    var height = 0
    /// Encoded source bytes: downloaded or read from the disk cache.
    var bytes = 0
    /// The written file, as `--out` joined with its name; `nil` without `--out`.
    var file: String?
    var fileBytes = 0
    /// For a repeated URL: the index of its first line, whose load and file it shares.
    var duplicateOf: Int?
    var milliseconds: Double = 0

    var isSuccess: Bool { error == nil }

    /// The URL as manifests and logs show it: user-info credentials masked.
    var shownURL: String { url.redactedURLForLog }

    /// One JSON object: index, url, ok, status, then the image's fields or the error.
    var jsonLine: JSONLine {
        var line = JSONLine()
        line.add("index", index)
        line.add("url", shownURL)
        line.add("ok", error == nil)
        if let status = status ?? error?.httpStatusCode { line.add("status", status) }
        if let error {
            line.add("error", object: .error(error))
        } else {
            if let cacheType { line.add("cacheType", cacheType.rawValue) }
            if let format { line.add("format", format.rawValue) }
            line.add("width", width)
            line.add("height", height)
            line.add("bytes", bytes)
            if let file {
                line.add("file", file)
                line.add("fileBytes", fileBytes)
            }
        }
        if let duplicateOf { line.add("duplicateOf", duplicateOf) }
        line.add("ms", milliseconds: milliseconds)
        return line
    }

    /// The same outcome for a later line with the same URL.
    func duplicate(index: Int, text: String) -> BulkRecord {
        var copy = self
        copy.index = index
        copy.url = text
        copy.duplicateOf = self.index
        return copy
    }
}
