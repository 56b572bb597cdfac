import Foundation
import WebImage

/// How one URL's load through the manager ended, as `fetch` and `demo` report it.
struct LoadReport: Sendable {
    /// The URL as given on the command line; reports show it with any user-info
    /// credentials masked (``WebImage/Swift/String/redactedURLForLog``), since they go to logs.
    var url: String
    /// The final image and where it came from, or why it failed.
    var result: Result<ImageLoadResult, WebImageError>
    /// Partial (progressive) images delivered before the final one.
    var partials: Int
    /// Encoded bytes: the downloaded or disk data; 0 for a memory hit.
    var bytes: Int
    var milliseconds: Double

    var isSuccess: Bool {
        if case .success = result { return true }
        return false
    }

    /// The `--json` line: the design's fields plus `partials`.
    var jsonLine: JSONLine {
        var line = JSONLine()
        line.add("url", url.redactedURLForLog)
        switch result {
        case .success(let loaded):
            line.add("ok", true)
            line.add("cacheType", loaded.cacheType.rawValue)
            if let image = loaded.image {
                line.add("format", image.format.rawValue)
                line.add("width", image.width)
                line.add("height", image.height)
                line.add("frames", image.frameCount)
                line.add("loopCount", image.loopCount)
            }
            line.add("bytes", bytes)
            line.add("ms", milliseconds: milliseconds)
            line.add("attempts", loaded.http?.attempts ?? 1)
            line.add("partials", partials)
        case .failure(let error):
            line.add("ok", false)
            line.add("error", object: .error(error))
        }
        return line
    }

    /// One readable line: `URL: jpeg 640x427, 45123 bytes, network, 12.3 ms`.
    var text: String {
        switch result {
        case .success(let loaded):
            var parts: [String] = []
            if let image = loaded.image {
                parts.append("\(image.format.rawValue) \(image.width)x\(image.height)"
                             + (image.isAnimated ? " (\(image.frameCount) frames)" : ""))
            }
            if loaded.cacheType != .memory { parts.append("\(bytes) bytes") }
            parts.append(Self.source(loaded.cacheType))
            if partials > 0 { parts.append("\(partials) partial images") }
            parts.append(String(format: "%.1f ms", milliseconds))
            return "\(url.redactedURLForLog): " + parts.joined(separator: ", ")
        case .failure(let error):
            return "\(url.redactedURLForLog): failed: \(error.description)"
        }
    }

    /// Where an image came from, in words.
    static func source(_ cacheType: ImageCacheType) -> String {
        switch cacheType {
        case .none: "network"
        case .memory: "memory cache"
        case .disk: "disk cache"
        case .all: "cache"
        }
    }
}
