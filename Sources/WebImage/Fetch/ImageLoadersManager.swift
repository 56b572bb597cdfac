import Foundation
import Synchronization

/// A loader made of loaders: each request goes to the last added loader that can
/// handle its URL (SDWebImage's `SDImageLoadersManager`).
///
/// ``shared`` holds the built-ins: ``FileImageLoader``, ``DataURLImageLoader`` and
/// ``ImageDownloader/shared``. Add a loader to take over a scheme; it is asked first.
/// ``allowedSchemes`` says which built-in schemes are handed to a loader: http, https and
/// data by default; `file:` only when switched on
/// (`ImageLoadersManager.shared.allowedSchemes.insert(.file)`), since URLs from untrusted
/// input must not read local files. Thread-safe. Its callback form (WebImageCompat's
/// ``WebImageCompat/ImageLoaderCallbacks``) hands each request to the member's own.
public final class ImageLoadersManager: ImageLoader, ImageFetchingLoader {
    /// The shared manager with the built-in loaders.
    public static let shared = ImageLoadersManager(
        loaders: [FileImageLoader(), DataURLImageLoader(), ImageDownloader.shared])

    private let members: Mutex<[any ImageLoader]>
    private let schemes = Mutex(LoaderSchemes.default)

    /// Creates a manager asking `loaders` from last to first.
    public init(loaders: [any ImageLoader] = []) {
        members = Mutex(loaders)
    }

    /// The loaders in the order they were added; the last is asked first.
    public var loaders: [any ImageLoader] {
        get { members.withLock { $0 } }
        set { members.withLock { $0 = newValue } }
    }

    /// The schemes among http, https, data and file that are handed to a loader; a URL
    /// with a scheme switched off fails with ``WebImageCodecs/WebImageError/Code/invalidURL`` without
    /// any I/O. Default ``LoaderSchemes/default`` (http, https, data). Other schemes are
    /// up to the loaders.
    public var allowedSchemes: LoaderSchemes {
        get { schemes.withLock { $0 } }
        set { schemes.withLock { $0 = newValue } }
    }

    /// Adds a loader that is asked before all present ones.
    public func addLoader(_ loader: any ImageLoader) {
        members.withLock { $0.append(loader) }
    }

    /// Removes `loader` (by identity).
    public func removeLoader(_ loader: any ImageLoader) {
        members.withLock { $0.removeAll { $0 === loader } }
    }

    /// The loader that would handle `url`, if any: none when its scheme is switched off
    /// in ``allowedSchemes``.
    public func loader(for url: URL?) -> (any ImageLoader)? {
        guard !isSwitchedOff(url) else { return nil }
        return loaders.reversed().first { $0.canRequestImage(for: url) }
    }

    private func isSwitchedOff(_ url: URL?) -> Bool {
        guard let scheme = LoaderSchemes(scheme: url?.scheme) else { return false }
        return !allowedSchemes.contains(scheme)
    }

    // MARK: ImageLoader

    /// Whether any member loader handles `url`.
    public func canRequestImage(for url: URL?) -> Bool { loader(for: url) != nil }

    /// Hands the load to the first loader that can handle `url`.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/invalidURL`` without any I/O when no loader handles
    ///   `url` or its scheme is switched off; otherwise what that loader throws.
    public func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        guard let loader = loader(for: url) else { throw refusal(of: url) }
        return try await loader.loadImage(with: url, options: options, context: context, observer: observer)
    }

    /// Why `url` has no loader: ``WebImageCodecs/WebImageError/Code/invalidURL`` with the reason.
    package func refusal(of url: URL?) -> WebImageError {
        let text = url?.redactedForLog ?? ""
        if text.isEmpty { return WebImageError(.invalidURL, "The URL is empty") }
        if isSwitchedOff(url) { return WebImageError(.invalidURL, "\(url?.scheme ?? "This") URLs are switched off: \(text)") }
        return WebImageError(.invalidURL, "No loader handles \(text)")
    }

    /// The fetcher of the member that handles `url`, when that member has one
    /// (``ImageFetchingLoader``).
    package func fetcher(for url: URL) -> ImageDownloader? {
        (loader(for: url) as? any ImageFetchingLoader)?.fetcher(for: url)
    }

    /// Asks the loader that handles `url`; `false` when there is none (as
    /// SDWebImage's `SDImageLoadersManager`): a URL no loader takes, or whose scheme is
    /// switched off, was refused before any I/O, so it says nothing about the URL, and
    /// switching its scheme on takes effect at once.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        guard let loader = loader(for: url) else { return false }
        return loader.shouldBlockFailedURL(url, error: error)
    }
}

// MARK: - LoaderSchemes

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
