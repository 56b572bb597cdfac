#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// A cache that cannot write (a directory that is not one, a full disk) makes stores
/// report `cacheIOFailed`, while loads still succeed from the network and leave nothing
/// half-written behind.
@Suite("Hardening: cache write failures", .timeLimit(.minutes(2)))
struct CacheWriteFailureTests {
    /// A PNG of noise (it does not compress), `side`×`side`.
    static func noisePNG(side: Int) throws -> Data {
        var state: UInt32 = 0x1234_5678
        let pixels = PixelBuffer(width: side, height: side, unsafeUninitialized: { p in
            for i in 0..<p.count {
                state = state &* 1_664_525 &+ 1_013_904_223
                p[i] = UInt8(truncatingIfNeeded: state >> 24)
            }
        })
        return try PNGCoder().encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: .init())
    }

    /// Loads a served PNG through a manager over `cache` and checks the load succeeded anyway.
    private func loadSucceeds(cache: ImageCache, body: Data) async throws {
        try await TestOrigin.with { origin in
            let downloader = ImageDownloader(config: DownloaderConfig())
            let manager = ImageManager(cache: cache, loader: downloader)
            origin.route("/a.png", .init(body: Array(body), contentType: "image/png"))
            for options: WebImageOptions in [[], [.waitStoreCache]] {
                let recorder = ResultRecorder()
                let operation = manager.loadImage(with: origin.url("/a.png"), options: options.union(.fromLoaderOnly),
                                                  completed: recorder.record)
                _ = await ManagerTestKit.eventually(20) { operation.isFinished }
                let results = await recorder.settled()
                #expect(results.count == 1)
                #expect(results.last?.error == nil, "\(String(describing: results.last?.error))")
                #expect(results.last?.image?.width != nil)
            }
            #expect(origin.requestCount("/a.png") == 2)
            await downloader.shutdown()
        }
    }

    @Test("a cache directory that cannot be created: stores fail, loads succeed")
    func unwritableDirectory() async throws {
        let dir = try TemporaryDirectory()
        // A regular file where the directory should be: even root cannot create entries in it.
        let blocker = dir.url.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let cache = ImageCache(namespace: "n", directory: blocker)
        let body = try Self.noisePNG(side: 16)
        let image = try PNGCoder().decode(body, options: .init())
        let error = await #expect(throws: WebImageError.self) {
            try await cache.store(image, data: body, forKey: "https://x.example/a.png")
        }
        #expect(error?.code == .cacheIOFailed)
        try await loadSucceeds(cache: cache, body: body)
        #expect(await cache.totalDiskCount() == 0)
    }

    /// A 64 KiB tmpfs mounted for the test, or `nil` where mounting is not allowed.
    static let smallDisk: URL? = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-full-\(getpid())")
        guard (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil,
              let outcome = try? ChildProcess.run(URL(fileURLWithPath: "/bin/mount"),
                                                  ["-t", "tmpfs", "-o", "size=64k", "tmpfs", url.path],
                                                  in: FileManager.default.temporaryDirectory),
              outcome.exitStatus == 0
        else { return nil }
        return url
    }()

    @Test("a full disk (64 KiB tmpfs): stores fail, loads succeed, no partial file is left",
          .enabled(if: smallDisk != nil, "mounting a tmpfs needs root or CAP_SYS_ADMIN"))
    func fullDisk() async throws {
        let disk = try #require(Self.smallDisk)
        defer {
            _ = try? ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [disk.path], in: FileManager.default.temporaryDirectory)
            try? FileManager.default.removeItem(at: disk)
        }
        let cache = ImageCache(namespace: "n", directory: disk)
        let body = try Self.noisePNG(side: 160)  // about 100 KiB
        #expect(body.count > 64 * 1024)
        let image = try PNGCoder().decode(body, options: .init())
        let error = await #expect(throws: WebImageError.self) {
            try await cache.store(image, data: body, forKey: "https://x.example/a.png")
        }
        #expect(error?.code == .cacheIOFailed)
        try await loadSucceeds(cache: cache, body: body)
        #expect(await cache.totalDiskCount() == 0)
        // Not even a temporary file survives the failed writes.
        #expect(TemporaryDirectory.names(in: cache.diskCache.directory).isEmpty)
    }
}
