import Dispatch
import Foundation
import WebImage

/// The disk cache read path under fuzzing: one cache in a private temporary directory,
/// whose entry file and extended data are overwritten with each input, then read back.
final class FuzzDiskCache: Sendable {
    static let shared = FuzzDiskCache()

    let cache: ImageCache
    let key = "https://fuzz.example/image.png"
    let directory: URL

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-fuzz-\(getpid())", isDirectory: true)
        var config = ImageCache.Config()
        config.shouldCacheImagesInMemory = false
        cache = ImageCache(namespace: "fuzz", directory: directory, config: config)
        try? FileManager.default.createDirectory(at: cache.diskCache.directory, withIntermediateDirectories: true)
    }

    /// Writes `data` as the entry and its extended data, and reads both back through the cache.
    func read(_ data: Data) {
        let path = cache.cachePath(forKey: key)
        // Written behind the cache's back, as another process or a damaged disk would leave it.
        _ = FileManager.default.createFile(atPath: path, contents: data)
        let sidecar = cache.diskCache.directory.appendingPathComponent(".\(URL(fileURLWithPath: path).lastPathComponent).extended")
        _ = FileManager.default.createFile(atPath: sidecar.path, contents: data)
        let done = DispatchSemaphore(value: 0)
        Task { [cache, key] in
            _ = await cache.diskCache.extendedData(forKey: key)
            done.signal()
        }
        done.wait()
        cache.queryImage(forKey: key, context: ImageCacheContext(maxPixelCount: 4_000_000)) { _ in done.signal() }
        done.wait()
    }
}
