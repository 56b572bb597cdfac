import Foundation
import Testing
@testable import WebImage
import WebImageCompat
@testable import WebImageCodecs
import WebImageTestSupport

/// Runs the built `webimage` tool (`swift build --build-tests` builds it beside the tests).
@Suite("webimage cache: the command-line contract", .timeLimit(.minutes(1)))
struct CacheCommandTests {
    static let tool = WebImageTool.executable

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("stats, path, clean and clear on a cache written by ImageCache")
    func commands() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool.path), "build the webimage tool first")
        let dir = try TemporaryDirectory()
        let cache = ImageCache(namespace: "default", directory: dir.url)
        try await cache.store(RawRGBACoder.image(), data: Data(repeating: 1, count: 300), forKey: "http://x/old.png")
        try await cache.store(RawRGBACoder.image(), data: Data(repeating: 2, count: 200), forKey: "http://x/new.png")
        try TemporaryDirectory.age(cache.cachePath(forKey: "http://x/old.png"), secondsAgo: 7200)

        let stats = try run(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(stats.status == 0)
        let object = try json(stats.out)
        #expect(object["count"] as? Int == 2 && object["bytes"] as? Int == 500)
        #expect(stats.out.split(separator: "\n").count == 1)

        let path = try run(["cache", "path", "http://x/new.png", "--cache-dir", dir.path])
        #expect(path.status == 0)
        #expect(path.out == cache.cachePath(forKey: "http://x/new.png") + "\n")
        // Issue #50 item 6: a missing key printed a path, which reads as an answer.
        let missing = try run(["cache", "path", "http://x/none.png", "--cache-dir", dir.path])
        #expect(missing.status == 1 && missing.out.isEmpty, "\(missing.out)")
        let missingJSON = try run(["cache", "path", "http://x/none.png", "--cache-dir", dir.path, "--json"])
        #expect(missingJSON.status == 1)
        #expect(try json(missingJSON.out)["exists"] as? Bool == false)

        let clean = try run(["cache", "clean", "--cache-dir", dir.path, "--max-age", "3600", "--json"])
        #expect(clean.status == 0)
        #expect(try json(clean.out)["removedCount"] as? Int == 1)
        #expect(await cache.containsImage(forKey: "http://x/new.png", cacheType: .disk) == .disk)

        #expect(try run(["cache", "clear", "--cache-dir", dir.path]).status == 0)
        #expect(await cache.totalDiskCount() == 0)
    }

    @Test("bad usage exits with status 2", arguments: [
        ["cache", "bogus"], ["cache", "path"], ["cache", "stats", "--max-age", "soon"], ["cache", "stats", "extra"],
    ])
    func badUsage(arguments: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool.path), "build the webimage tool first")
        #expect(try run(arguments).status == 2)
    }

    @Test("the default cache lives under XDG_CACHE_HOME/webimage/default")
    func xdgDefault() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool.path), "build the webimage tool first")
        let dir = try TemporaryDirectory()
        let out = try run(["cache", "stats", "--json"], environment: ["XDG_CACHE_HOME": dir.path]).out
        #expect(try json(out)["path"] as? String == dir.path + "/webimage/default")
    }
}
