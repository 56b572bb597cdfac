import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("DiskCache: extended data", .timeLimit(.minutes(1)))
struct DiskCacheExtendedDataTests {
    @Test("extended data round-trips, is replaced, and goes with its entry", arguments: [true, false])
    func roundTrip(usesExtendedAttributes: Bool) async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(usesExtendedAttributes: usesExtendedAttributes))
        try await cache.store(Data("image".utf8), forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == nil)
        try await cache.setExtendedData(Data("etag: \"abc\"".utf8), forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == Data("etag: \"abc\"".utf8))
        try await cache.setExtendedData(Data("etag: \"def\"".utf8), forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == Data("etag: \"def\"".utf8))
        // Hidden sidecars are not entries.
        #expect(await cache.totalCount() == 1)
        #expect(await cache.totalSize() == 5)

        try await cache.setExtendedData(nil, forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == nil)
        try await cache.setExtendedData(Data("url".utf8), forKey: "k")
        await cache.removeData(forKey: "k")
        #expect(TemporaryDirectory.names(in: dir.url).isEmpty)
        try await cache.store(Data("image".utf8), forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == nil)
    }

    @Test("with extended attributes the data lives in user.webimage.extended on the file")
    func storedAsAttribute() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url)
        try await cache.store(Data("image".utf8), forKey: "k")
        try await cache.setExtendedData(Data("v".utf8), forKey: "k")
        let path = cache.cachePath(forKey: "k")
        let names = TemporaryDirectory.names(in: dir.url)
        if let attribute = DiskCache.getAttribute(path) {
            #expect(attribute == Data("v".utf8))
            #expect(names == [CacheKey.fileName(for: "k")])
        } else {
            // This file system has no user xattrs: the sidecar fallback must be there.
            #expect(names.count == 2)
        }
    }

    @Test("a new store of the same key drops the old sidecar; no entry means an error")
    func storeResetsAndMissingEntryThrows() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(usesExtendedAttributes: false))
        await #expect(throws: WebImageError.self) { try await cache.setExtendedData(Data("x".utf8), forKey: "none") }
        try await cache.store(Data("a".utf8), forKey: "k")
        try await cache.setExtendedData(Data("old".utf8), forKey: "k")
        try await cache.store(Data("b".utf8), forKey: "k")
        #expect(await cache.extendedData(forKey: "k") == nil)
        #expect(TemporaryDirectory.names(in: dir.url) == [CacheKey.fileName(for: "k")])
    }

    @Test("a sidecar whose entry another process removed is cleaned up")
    func orphanSidecar() async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(usesExtendedAttributes: false))
        try await cache.store(Data("a".utf8), forKey: "k")
        try await cache.setExtendedData(Data("meta".utf8), forKey: "k")
        try FileManager.default.removeItem(atPath: cache.cachePath(forKey: "k"))
        await cache.removeExpiredData()
        #expect(TemporaryDirectory.names(in: dir.url).isEmpty)
    }
}
