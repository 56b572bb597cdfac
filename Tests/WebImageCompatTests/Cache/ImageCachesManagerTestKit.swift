import Dispatch
import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestSupport

/// Three real ``ImageCache`` members, each in its own namespace of one directory (removed
/// with the fixture), chained in order.
final class CacheChainFixture: Sendable {
    let directory: URL
    let members: [ImageCache]
    let chain: ImageCachesManager

    /// `configure` adjusts member `i`'s config (for example to make it disk-only).
    init(count: Int = 3, configure: (Int, inout ImageCache.Config) -> Void = { _, _ in }) throws {
        let directory = try Self.makeDirectory()
        members = (0..<count).map { index in
            var config = ImageCache.Config()
            config.coders = RawRGBACoder.manager()
            configure(index, &config)
            return ImageCache(namespace: "member\(index)", directory: directory, config: config)
        }
        self.directory = directory
        chain = ImageCachesManager(caches: members)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A fresh directory under the system temporary directory.
    static func makeDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Stores `image` with its encoded data in member `index` only.
    @discardableResult
    func put(_ image: DecodedImage, forKey key: String, in index: Int, cacheType: ImageCacheType = .all) async throws -> Data {
        let data = try RawRGBACoder().encode(image, as: image.format, options: .init())
        try await members[index].store(image, data: data, forKey: key, cacheType: cacheType)
        return data
    }

    /// Where member `index` holds `key`: in memory (`imageFromMemory`) and on disk (its file).
    func holds(_ key: String, in index: Int) async -> (memory: Bool, disk: Bool) {
        let member = members[index]
        return (member.imageFromMemory(forKey: key) != nil, await member.diskImageData(forKey: key) != nil)
    }
}

extension ImageCachingCallbacks {
    /// ``diskData(forKey:completion:)`` as an `async` call.
    func awaitDiskData(forKey key: String) async -> Data? {
        await withCheckedContinuation { c in diskData(forKey: key) { c.resume(returning: $0) } }
    }

    /// ``extendedData(forKey:completion:)`` as an `async` call.
    func awaitExtendedData(forKey key: String) async -> Data? {
        await withCheckedContinuation { c in extendedData(forKey: key) { c.resume(returning: $0) } }
    }

    /// ``setExtendedData(_:forKey:completion:)`` as an `async` call.
    func awaitSetExtendedData(_ data: Data?, forKey key: String) async -> Result<Void, WebImageError> {
        await withCheckedContinuation { c in setExtendedData(data, forKey: key) { c.resume(returning: $0) } }
    }
}
