import Foundation
import WebImageCodecs

/// A parsed proxy path: `/{signature}/{option}/…/{base64url source}[.{ext}]`.
///
/// Strict, as the issue asks: an unknown option, a malformed value, a bad base64 or a
/// source that is not an absolute http(s) URL is an error (400), never ignored.
/// Parsing runs on the request's task and allocates only the pieces it returns.
public struct ProxyPath: Sendable, Hashable {
    /// The signature segment as sent (`unsafe` or base64url).
    public var signature: String
    /// Everything after the signature, starting with `/`: what the signature signs.
    public var signedPart: String
    public var options: ProxyOptions
    public var source: URL

    /// The longest path accepted; longer ones are refused before any work.
    public static let maxLength = 8192

    /// Parses `path` (the raw request path, still percent-encoded).
    ///
    /// - Throws: ``ProxyError`` with status 400.
    public static func parse(_ path: String) throws(ProxyError) -> ProxyPath {
        guard path.utf8.count <= maxLength else { throw .badRequest("The path is longer than \(maxLength) bytes") }
        guard let decoded = path.removingPercentEncoding else {
            throw .badRequest("The path has malformed percent-encoding")
        }
        var segments = decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count >= 2, let signature = segments.first, !signature.isEmpty else {
            throw .badRequest("Expected /{signature}/{options…}/{base64url source}")
        }
        segments = segments.dropFirst()
        guard let last = segments.popLast(), !last.isEmpty else { throw .badRequest("The source is missing") }
        var options = ProxyOptions()
        for segment in segments { try apply(segment, to: &options) }
        let (encoded, ext) = splitExtension(last)
        if let ext {
            guard let format = ProxyOptions.formatNames[ext.lowercased()] else {
                throw .badRequest("Unknown output extension .\(ext)")
            }
            options.format = format
        }
        let source = try decodeSource(encoded)
        // The signature covers the path as sent, still percent-encoded, as imgproxy's does.
        let signed = path.dropFirst().drop { $0 != "/" }
        return ProxyPath(signature: String(signature), signedPart: String(signed), options: options, source: source)
    }

    /// `name.ext` → (`name`, `ext`); base64url has no dot, so the last dot starts the extension.
    private static func splitExtension(_ segment: Substring) -> (Substring, Substring?) {
        guard let dot = segment.lastIndex(of: ".") else { return (segment, nil) }
        return (segment[..<dot], segment[segment.index(after: dot)...])
    }

    /// The source URL from base64url (no padding needed); imgproxy splits long values
    /// with `/`, which the path split already joined back as separate segments, so only
    /// one segment is accepted here.
    static func decodeSource(_ text: Substring) throws(ProxyError) -> URL {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard base64.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=") }) else {
            throw .badRequest("The source is not valid base64url")
        }
        base64 = base64.replacingOccurrences(of: "=", with: "")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else {
            throw .badRequest("The source is not valid base64url of a UTF-8 URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              ["http", "https", ExampleImages.scheme].contains(scheme), url.host?.isEmpty == false || scheme == ExampleImages.scheme
        else { throw .badRequest("The source must be an absolute http or https URL") }
        return url
    }

    /// Applies one `name:value[:value]` option.
    static func apply(_ segment: Substring, to options: inout ProxyOptions) throws(ProxyError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts[0], args = Array(parts.dropFirst())
        switch name {
        case "rs", "resize":
            guard (1...3).contains(args.count), let mode = ProxyOptions.ResizeMode(rawValue: String(args[0])) else {
                throw .badRequest("rs takes fit|fill|fill-down[:W[:H]]")
            }
            options.mode = mode
            if args.count > 1 { options.width = try int(args[1], "rs width", 0...ProxyOptions.maxSide) }
            if args.count > 2 { options.height = try int(args[2], "rs height", 0...ProxyOptions.maxSide) }
        case "w", "width": options.width = try int(one(args, name), "width", 0...ProxyOptions.maxSide)
        case "h", "height": options.height = try int(one(args, name), "height", 0...ProxyOptions.maxSide)
        case "q", "quality": options.quality = try int(one(args, name), "quality", 1...100)
        case "f", "format", "ext":
            guard let format = ProxyOptions.formatNames[String(try one(args, name)).lowercased()] else {
                throw .badRequest("f takes jpeg|png|webp|avif|gif")
            }
            options.format = format
        case "bl", "blur": options.blur = try number(one(args, name), "blur", 0...ProxyOptions.maxBlur)
        case "dpr": options.dpr = try number(one(args, name), "dpr", 1...4)
        case "g", "gravity":
            guard let gravity = ProxyOptions.Gravity(rawValue: String(try one(args, name))) else {
                throw .badRequest("g takes ce|no|so|ea|we|sm")
            }
            options.gravity = gravity
        default:
            throw .badRequest("Unknown option \(name.prefix(32))")
        }
    }

    private static func one(_ args: [Substring], _ name: Substring) throws(ProxyError) -> Substring {
        guard args.count == 1 else { throw .badRequest("\(name) takes exactly one value") }
        return args[0]
    }

    private static func int(_ text: Substring, _ what: String, _ range: ClosedRange<Int>) throws(ProxyError) -> Int {
        guard text.count <= 9, text.allSatisfy(\.isASCII), let value = Int(text), range.contains(value) else {
            throw .badRequest("\(what) must be an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    private static func number(_ text: Substring, _ what: String, _ range: ClosedRange<Double>) throws(ProxyError) -> Double {
        guard text.count <= 16, let value = Double(text), value.isFinite, range.contains(value) else {
            throw .badRequest("\(what) must be a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}
