import Foundation
import WebImage

/// The cache, downloader and manager one run of `fetch`, `prefetch` or `demo` loads
/// through. Owns its downloader: call ``shutdown()`` before exiting.
struct CommandPipeline: Sendable {
    /// Settings from the command line.
    struct Settings: Sendable {
        /// `--cache-dir`: the directory holding the `default` namespace; `nil` is the XDG
        /// cache directory (`$XDG_CACHE_HOME`, else `~/.cache`).
        var cacheDirectory: URL?
        /// `--memory-only`: neither read nor write the disk cache.
        var memoryOnly = false
        /// `--concurrency`: transfers at once.
        var concurrency: Int?
        /// `--timeout`: seconds per transfer.
        var timeout: Double?
        /// `--header`: added to every request, replacing a default header of the same name.
        var headers: [(name: String, value: String)] = []
        /// `--retries`: retries of transient failures.
        var retries: Int?
        /// `--http-cache`: honour Cache-Control/Expires freshness.
        var respectsHTTPCaching = false
        /// `--block-private-addresses`: the SSRF guard, and no `file:` loader.
        var blocksPrivateAddresses = false
    }

    let cache: LibraryCache
    let downloader: ImageDownloader
    let recorder: LoadRecorder
    let manager: ImageManager

    init(_ settings: Settings) {
        let disk = DiskCache(directory: DiskCache.directory(namespace: "default", in: settings.cacheDirectory))
        cache = LibraryCache(memory: .withDefaultLimits(), disk: settings.memoryOnly ? nil : disk)
        var config = DownloaderConfig.default
        if let concurrency = settings.concurrency { config.maxConcurrentDownloads = concurrency }
        if let timeout = settings.timeout { config.downloadTimeout = timeout }
        for header in settings.headers {
            config.httpHeaders.remove(header.name)
            config.httpHeaders.add(name: header.name, value: header.value)
        }
        if let retries = settings.retries { config.retryPolicy = .retries(retries) }
        // Untrusted URLs: refuse internal addresses on every hop, and load no file: URL
        // (the guard covers the network only).
        if settings.blocksPrivateAddresses { config.hopPolicy.addresses = .blockPrivateAddresses }
        downloader = ImageDownloader(config: config)
        let loaders: [any ImageLoader] = settings.blocksPrivateAddresses
            ? [DataURLImageLoader(), downloader] : [FileImageLoader(), DataURLImageLoader(), downloader]
        let loadersManager = ImageLoadersManager(loaders: loaders)
        // The command line's own inputs: file: is as trusted as the rest of them.
        if !settings.blocksPrivateAddresses { loadersManager.allowedSchemes.insert(.file) }
        recorder = LoadRecorder(loadersManager)
        manager = ImageManager(cache: cache, loader: recorder)
        if settings.respectsHTTPCaching { manager.httpCachePolicy = .respectHeaders }
    }

    /// Waits for the cache's background writes, then shuts the downloader's HTTP client
    /// down: after this the process may exit without losing a write.
    func shutdown() async {
        await cache.flush()
        await downloader.shutdown()
    }

    /// Parses `--header 'Name: value'`; `nil` when there is no colon or no name.
    static func parseHeader(_ text: String) -> (name: String, value: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        return (name, value)
    }
}
