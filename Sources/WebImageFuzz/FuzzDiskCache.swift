import Dispatch
import Foundation
import WebImage

/// The disk cache read path under fuzzing: one cache in a private temporary directory,
/// whose entry file and extended data are overwritten with each input, then read back.
final class FuzzDiskCache: Sendable {
    static let shared = FuzzDiskCache()

    let cache: DiskCache
    let key = "https://fuzz.example/image.png"
    let directory: URL

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("webimage-fuzz-\(getpid())", isDirectory: true)
        cache = DiskCache(directory: directory.appendingPathComponent("fuzz", isDirectory: true))
        try? FileManager.default.createDirectory(at: cache.directory, withIntermediateDirectories: true)
    }

    /// Writes `data` as the entry and its extended data, and reads both back as a cache
    /// query does: the entry's bytes, its extended data, then a decode with the query's
    /// options.
    ///
    /// Everything runs in one task and the input's bytes are released before the
    /// semaphore lets libFuzzer go on; a cache query would hand them to other
    /// queues that release them a moment after the completion, which libFuzzer's
    /// per-input leak check reads as a leak.
    func read(_ data: Data) {
        let path = cache.cachePath(forKey: key)
        // Written behind the cache's back, as another process or a damaged disk would leave it.
        _ = FileManager.default.createFile(atPath: path, contents: data)
        let sidecar = cache.directory.appendingPathComponent(".\(URL(fileURLWithPath: path).lastPathComponent).extended")
        _ = FileManager.default.createFile(atPath: sidecar.path, contents: data)
        let done = DispatchSemaphore(value: 0)
        Task { [cache, key] in
            await Self.query(cache, key: key)
            done.signal()
        }
        done.wait()
    }

    private static func query(_ cache: DiskCache, key: String) async {
        _ = await cache.extendedData(forKey: key)
        guard let entry = await cache.data(forKey: key) else { return }
        var context = WebImageContext()
        context.maxPixelCount = 4_000_000
        let options = context.decodeOptions(forKey: key, firstFrameOnly: false)
        _ = try? ImageCodersManager.shared.decode(entry, options: options)
    }
}
