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

    @Test("a store with extended data writes both in one step: no temporary file left, the data there at once, a replacement resets it",
          arguments: [true, false])
    func storeWithExtendedData(usesExtendedAttributes: Bool) async throws {
        let dir = try TemporaryDirectory()
        let cache = DiskCache(directory: dir.url, config: .init(usesExtendedAttributes: usesExtendedAttributes))
        // The first write also creates the directory.
        try cache.writeDataSync(Data("image".utf8), extendedData: Data("etag: \"a\"".utf8), forKey: "k")
        #expect(cache.readDataSync(forKey: "k") == Data("image".utf8))
        #expect(cache.extendedDataSync(forKey: "k") == Data("etag: \"a\"".utf8))
        let entry = CacheKey.fileName(for: "k")
        let names = Set(TemporaryDirectory.names(in: dir.url))
        if usesExtendedAttributes, DiskCache.getAttribute(cache.cachePath(forKey: "k")) != nil {
            #expect(names == [entry])
        } else {
            #expect(names == [entry, DiskCache.sidecarName(forName: entry)])
        }
        // An existing entry is replaced (the rename path), with the new extended data.
        try cache.writeDataSync(Data("image 2".utf8), extendedData: Data("etag: \"b\"".utf8), forKey: "k")
        #expect(cache.readDataSync(forKey: "k") == Data("image 2".utf8))
        #expect(cache.extendedDataSync(forKey: "k") == Data("etag: \"b\"".utf8))
        try cache.writeDataSync(Data("image 3".utf8), forKey: "k")
        #expect(cache.extendedDataSync(forKey: "k") == nil)
        #expect(TemporaryDirectory.names(in: dir.url) == [entry])
        #expect(await cache.totalSize() == 7)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: cache.cachePath(forKey: "k"))[.posixPermissions] as? Int)
        // O_TMPFILE takes a mode as O_CREAT does: without it the entry would be unreadable.
        #expect(mode & 0o600 == 0o600)
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
    @Test("entry(forKey:) gives the bytes and the extended data of one entry, from the main directory, else an additional one; nil on a miss",
          arguments: [true, false])
    func entryReads(usesExtendedAttributes: Bool) async throws {
        let (main, extra) = (try TemporaryDirectory(), try TemporaryDirectory())
        let config = DiskCache.Config(additionalCachePaths: [extra.url.path], usesExtendedAttributes: usesExtendedAttributes)
        let other = DiskCache(directory: extra.url, config: .init(usesExtendedAttributes: usesExtendedAttributes))
        try other.writeDataSync(Data("old".utf8), extendedData: Data("v1".utf8), forKey: "k")
        let cache = DiskCache(directory: main.url, config: config)
        #expect(await cache.entry(forKey: "k") == StoredEntry(data: Data("old".utf8), extendedData: Data("v1".utf8)))
        try cache.writeDataSync(Data("new".utf8), extendedData: Data("v2".utf8), forKey: "k")
        #expect(await cache.entry(forKey: "k") == StoredEntry(data: Data("new".utf8), extendedData: Data("v2".utf8)))
        try cache.writeDataSync(Data("plain".utf8), forKey: "p")
        #expect(await cache.entry(forKey: "p") == StoredEntry(data: Data("plain".utf8), extendedData: nil))
        #expect(await cache.entry(forKey: "missing") == nil)
    }
    @Test("a former format's folder: the cache's entries, sidecars and temporary files go, anything else stays, and the folder goes once empty")
    func formerFolder() throws {
        let dir = try TemporaryDirectory()
        let old = DiskCache(directory: dir.url, config: .init(usesExtendedAttributes: false))
        try old.writeDataSync(Data("a".utf8), extendedData: Data("meta".utf8), forKey: "http://x/a.JPG")
        try old.writeDataSync(Data("b".utf8), forKey: "http://x/b")
        try Data("t".utf8).write(to: dir.url.appendingPathComponent(".tmp-1-2"))
        try Data("mine".utf8).write(to: dir.url.appendingPathComponent("notes.txt"))
        try Data("mine".utf8).write(to: dir.url.appendingPathComponent(String(repeating: "a", count: 32) + ".toolongext"))
        #expect(TemporaryDirectory.names(in: dir.url).count == 6)
        DiskCache.removeFormerFolderSync(at: dir.url.path)
        #expect(Set(TemporaryDirectory.names(in: dir.url)) == ["notes.txt", String(repeating: "a", count: 32) + ".toolongext"])
        for name in TemporaryDirectory.names(in: dir.url) { try FileManager.default.removeItem(at: dir.url.appendingPathComponent(name)) }
        try old.writeDataSync(Data("c".utf8), forKey: "k")
        DiskCache.removeFormerFolderSync(at: dir.url.path)
        #expect(!FileManager.default.fileExists(atPath: dir.url.path))
    }
}
