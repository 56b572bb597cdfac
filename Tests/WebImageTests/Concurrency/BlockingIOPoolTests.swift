import Foundation
import Glibc
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

@Suite("Blocking I/O stays off the cooperative pool", .timeLimit(.minutes(1)))
struct BlockingIOPoolTests {
    /// Each entry is a FIFO, whose `open` blocks until a writer appears: a disk that
    /// stalls. Far more reads than the cooperative pool has threads are started; with
    /// reads inside the `async` functions every cooperative thread would be stuck and
    /// nothing else could run. On the I/O pool, other tasks keep making progress.
    @Test("disk loads that stall on every cooperative thread's worth leave other tasks running")
    func stalledReadsDoNotStarveTasks() async throws {
        let directory = try TemporaryDirectory()
        let cache = ImageCache(namespace: "stall", directory: directory.url)
        try FileManager.default.createDirectory(at: cache.diskCache.directory, withIntermediateDirectories: true)
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        let keys = (0..<count).map { "http://127.0.0.1/stall/\($0).png" }
        let paths = keys.map { cache.cachePath(forKey: $0) }
        for path in paths { #expect(mkfifo(path, 0o600) == 0) }

        let finishedReads = Locked(0)
        let readers = Task {
            await withTaskGroup(of: Void.self) { group in
                for (i, key) in keys.enumerated() {
                    group.addTask {
                        // Both the disk cache's own async read and a whole image-cache query.
                        if i.isMultiple(of: 2) {
                            _ = await cache.diskCache.data(forKey: key)
                        } else {
                            _ = try? await cache.queryImage(forKey: key, options: .queryDiskOnly)
                        }
                        finishedReads.withLock { $0 += 1 }
                    }
                }
            }
        }
        // Give the readers time to take whatever threads they would take.
        try await Task.sleep(for: .milliseconds(200))
        #expect(finishedReads.withLock { $0 } == 0, "every read is stalled on its FIFO")

        // Other work on the cooperative pool still runs to the end.
        let progress = await Task.detached { () -> Int in
            var sum = 0
            for i in 0..<1000 {
                sum &+= i
                await Task.yield()
            }
            return sum
        }.value
        #expect(progress == 499_500)
        #expect(finishedReads.withLock { $0 } == 0, "the reads were still stalled while the other task ran")

        // Release the stalled opens: a FIFO opened read-write counts as a writer.
        let release = Task.detached {
            while finishedReads.withLock({ $0 }) < count {
                for path in paths {
                    let fd = open(path, O_RDWR | O_NONBLOCK)
                    if fd >= 0 { close(fd) }
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        await readers.value
        await release.value
        #expect(finishedReads.withLock { $0 } == count)
    }

    @Test("flush returns after every queued store is on disk")
    func flushWaitsForWrites() async throws {
        let directory = try TemporaryDirectory()
        let cache = ImageCache(namespace: "flush", directory: directory.url)
        let image = DecodedImage(pixels: PixelBuffer(width: 64, height: 64), format: .png)
        let keys = (0..<40).map { "http://127.0.0.1/flush/\($0).png" }
        // Without data, each store encodes on the decode queue before writing: two hops.
        for key in keys { cache.store(image, data: nil, forKey: key, cacheType: .all, completion: nil) }
        await cache.flush()
        for key in keys {
            #expect(FileManager.default.fileExists(atPath: cache.cachePath(forKey: key)))
        }
        await cache.flush()
    }
}
