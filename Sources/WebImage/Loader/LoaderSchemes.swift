/// The URL schemes an ``ImageLoadersManager`` hands to its loaders.
///
/// A URL whose scheme is switched off fails with ``WebImageError/Code/invalidURL`` before
/// any I/O. The default is every built-in scheme; switching one off is one line, e.g. no
/// local files for the shared manager:
///
/// ```swift
/// ImageLoadersManager.shared.allowedSchemes.remove(.file)
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
    /// `file:` URLs (``FileImageLoader``): switch off when URLs come from untrusted input.
    public static let file = LoaderSchemes(rawValue: 1 << 3)

    /// http, https, data and file: the default.
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
