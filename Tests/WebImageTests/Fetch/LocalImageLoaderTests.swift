import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("file: and data: loaders, ImageLoadersManager", .timeLimit(.minutes(1)))
struct LocalImageLoaderTests {
    private let fileLoader = FileImageLoader(coders: LoaderTestKit.coders)
    private let dataLoader = DataURLImageLoader(coders: LoaderTestKit.coders)

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-loader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a file: URL loads and decodes, with one progress report")
    func fileLoads() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bytes, pixels) = LoaderTestKit.rawImage()
        let file = dir.appendingPathComponent("a.raw")
        try Data(bytes).write(to: file)

        let r = LoadRecorder()
        r.request(fileLoader, file)
        let response = try await r.final().get()
        #expect(response.image?.pixels == pixels)
        #expect(response.data == Data(bytes))
        #expect(response.http == nil)
        #expect(r.progressReports.map(\.received) == [bytes.count])
    }

    @Test("a missing file or a directory fails with invalidURL, not blocked; garbage with badImageData")
    func fileErrors() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("nope.raw")
        let error = try #require(await LoadRecorder().load(fileLoader, missing))
        #expect(error.code == .invalidURL)
        #expect(!fileLoader.shouldBlockFailedURL(missing, error: error))
        #expect(await LoadRecorder().load(fileLoader, dir)?.code == .invalidURL)

        let garbage = dir.appendingPathComponent("garbage.raw")
        try Data("hello".utf8).write(to: garbage)
        #expect(await LoadRecorder().load(fileLoader, garbage)?.code == .badImageData)
        let empty = dir.appendingPathComponent("empty.raw")
        try Data().write(to: empty)
        #expect(await LoadRecorder().load(fileLoader, empty)?.code == .badImageData)

        let small = FileImageLoader(coders: LoaderTestKit.coders, maxBytes: 3)
        #expect(await LoadRecorder().load(small, garbage)?.code == .responseTooLarge)
    }

    @Test("only regular files are read: a FIFO, /dev/stdin and devices are refused at once, never read")
    func notRegularFiles() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("pipe.raw")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A FIFO without a writer would block a read (or the open) forever; /dev/zero never ends.
        var paths = [fifo.path, "/dev/zero", "/dev/null"]
        var info = stat()
        // /dev/stdin is whatever the test runner gave: refused unless it is a regular file.
        if fstat(0, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { paths.append("/dev/stdin") }
        for path in paths {
            let error = await LoadRecorder().load(fileLoader, URL(fileURLWithPath: path))
            #expect(error?.code == .invalidURL, "\(path)")
            #expect(error?.message.contains("not a regular file") == true || error?.message.contains("Cannot open") == true,
                    "\(path): \(String(describing: error))")
        }
    }

    @Test("file reads run on the loader's bounded I/O pool, not on the calling task")
    func readsOnThePool() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (bytes, pixels) = LoaderTestKit.rawImage(width: 4, height: 4)
        let file = dir.appendingPathComponent("a.raw")
        try Data(bytes).write(to: file)
        let pool = BlockingIOPool(threadCount: 1)
        let gate = DispatchSemaphore(value: 0)
        pool.submit { gate.wait() }
        let loader = FileImageLoader(coders: LoaderTestKit.coders, ioPool: pool)
        let load = Task { try await loader.loadImage(with: file).image?.pixels }
        #expect(await LoaderTestKit.eventually { pool.pendingCount == 2 }, "the read waits for the pool's only thread")
        gate.signal()
        #expect(try await load.value == pixels)
    }

    @Test("data: URLs in base64 and percent-encoding decode; malformed ones fail with invalidURL")
    func dataURLs() async throws {
        let (bytes, pixels) = LoaderTestKit.rawImage(width: 4, height: 4)
        let base64 = try #require(URL(string: "data:image/x-raw;base64," + Data(bytes).base64EncodedString()))
        let r = LoadRecorder()
        r.request(dataLoader, base64)
        #expect(try await r.final().get().image?.pixels == pixels)

        let percent = bytes.map { String(format: "%%%02X", $0) }.joined()
        let encoded = try #require(URL(string: "data:," + percent))
        let p = LoadRecorder()
        p.request(dataLoader, encoded)
        #expect(try await p.final().get().data == Data(bytes))

        let bad = try #require(URL(string: "data:image/png;base64,a"))
        #expect(await LoadRecorder().load(dataLoader, bad)?.code == .invalidURL)
        let noComma = try #require(URL(string: "data:image/png;base64"))
        #expect(await LoadRecorder().load(dataLoader, noComma)?.code == .invalidURL)
    }

    @Test("as fetchers (the pipeline's seam): a file's and a data: URL's bytes, undecoded and with no response; the loaders' refusals")
    func fetchers() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Not an image: a fetcher hands over bytes and decodes nothing.
        let text = Data("not an image".utf8)
        let file = dir.appendingPathComponent("t.txt")
        try text.write(to: file)
        guard case .body(let read, let http) = try await fileLoader.fetch(file, validators: nil) else {
            Issue.record("no body")
            return
        }
        #expect(read.data == text && http == nil && read.etag == nil)
        let fifo = dir.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        await #expect(throws: WebImageError.self) { _ = try await fileLoader.fetch(fifo, validators: nil) }
        let small = FileImageLoader(coders: LoaderTestKit.coders, maxBytes: 3)
        do {
            _ = try await small.fetch(file, validators: nil)
            Issue.record("a file over maxBytes was read")
        } catch {
            #expect(error.code == .responseTooLarge)
        }

        let url = try #require(URL(string: "data:text/plain;base64," + text.base64EncodedString()))
        guard case .body(let payload, nil) = try await dataLoader.fetch(url, validators: nil) else {
            Issue.record("no body")
            return
        }
        #expect(payload.data == text)
        do {
            _ = try await dataLoader.fetch(file, validators: nil)
            Issue.record("a file: URL was fetched as data:")
        } catch {
            #expect(error.code == .invalidURL)
        }
    }

    @Test("a cancelled local load reports cancelled exactly once")
    func cancelLocal() async throws {
        let (bytes, _) = LoaderTestKit.rawImage(width: 4, height: 4)
        let url = try #require(URL(string: "data:;base64," + Data(bytes).base64EncodedString()))
        let r = LoadRecorder()
        let token = r.request(dataLoader, url)
        token.cancel()
        let result = await r.final()
        try await Task.sleep(for: .milliseconds(100))
        #expect(r.finalCount == 1)
        if case .failure(let error) = result { #expect(error.code == .cancelled) }
    }

    @Test("ImageLoadersManager routes by scheme, last added first, and rejects unknown schemes")
    func managerRouting() async throws {
        let downloader = ImageDownloader(config: LoaderTestKit.config())
        let manager = ImageLoadersManager(loaders: [fileLoader, dataLoader, downloader])
        #expect(manager.loader(for: URL(fileURLWithPath: "/tmp/a.png")) == nil, "file: is off by default")
        manager.allowedSchemes.insert(.file)
        #expect(manager.loader(for: URL(string: "https://example.com/a.png")) === downloader)
        #expect(manager.loader(for: URL(fileURLWithPath: "/tmp/a.png")) === fileLoader)
        #expect(manager.loader(for: URL(string: "data:,x")) === dataLoader)
        #expect(!manager.canRequestImage(for: URL(string: "ftp://example.com/a.png")))
        #expect(await LoadRecorder().load(manager, URL(string: "ftp://example.com/a.png"))?.code == .invalidURL)
        #expect(await LoadRecorder().load(manager, nil)?.code == .invalidURL)

        let other = FileImageLoader(coders: LoaderTestKit.coders)
        manager.addLoader(other)
        #expect(manager.loader(for: URL(fileURLWithPath: "/tmp/a.png")) === other)
        manager.removeLoader(other)
        #expect(manager.loader(for: URL(fileURLWithPath: "/tmp/a.png")) === fileLoader)

        let (bytes, pixels) = LoaderTestKit.rawImage(width: 4, height: 4)
        let url = URL(string: "data:;base64," + Data(bytes).base64EncodedString())
        #expect(try await manager.loadImage(with: url).image?.pixels == pixels)
        await downloader.shutdown()
    }
}

extension LoadRecorder {
    /// Loads `url` and returns the error, or `nil` on success.
    func load(_ loader: any ImageLoaderCallbacks, _ url: URL?) async -> WebImageError? {
        request(loader, url)
        return await finalError()
    }
}
