/// The URL schemes an ``ImageLoadersManager`` hands to its loaders.
///
/// A URL whose scheme is switched off fails with ``WebImageCodecs/WebImageError/Code/invalidURL`` before
/// any I/O. The default is ``default``: http, https and data, not `file:`, so a URL from
/// untrusted input never reads a local file. Switching `file:` on is one line:
///
/// ```swift
/// ImageLoadersManager.shared.allowedSchemes.insert(.file)
/// ```
///
/// Schemes of loaders added by the app (neither of these four) are not affected.
public struct LoaderSchemes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// Creates a set from its raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `http:` URLs (``ImageDownloader``).
    public static let http = LoaderSchemes(rawValue: 1 << 0)
    /// `https:` URLs (``ImageDownloader``).
    public static let https = LoaderSchemes(rawValue: 1 << 1)
    /// `data:` URLs (``DataURLImageLoader``).
    public static let data = LoaderSchemes(rawValue: 1 << 2)
    /// `file:` URLs (``FileImageLoader``): off by default; switch on only when URLs come
    /// from trusted input.
    public static let file = LoaderSchemes(rawValue: 1 << 3)

    /// http, https and data: the default.
    public static let `default`: LoaderSchemes = [.http, .https, .data]
    /// http, https, data and file.
    public static let all: LoaderSchemes = [.http, .https, .data, .file]

    /// The member for a URL scheme (case-insensitive), or `nil` for a scheme not in this set's
    /// vocabulary.
    public init?(scheme: String?) {
        switch scheme?.lowercased() {
        case "http": self = .http
        case "https": self = .https
        case "data": self = .data
        case "file": self = .file
        default: return nil
        }
    }
}
