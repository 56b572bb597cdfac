import Foundation
import Synchronization
import WebImage

/// The plain-Swift references the caches are measured against: a locked dictionary
/// for the memory cache and a raw `read()` for the disk cache.
enum ReferenceWork {
    /// Shared by the worker threads; the Mutex is the whole point of the reference.
    final class Store: Sendable {
        let map: Mutex<[String: DecodedImage]>
        let keys: [String]
        let image: DecodedImage

        init(entries: Int) {
            let pixels = PixelBuffer(width: 32, height: 32)
            image = DecodedImage(pixels: pixels, format: .jpeg)
            keys = (0..<entries).map { "https://example.com/images/\($0).jpg" }
            var map: [String: DecodedImage] = [:]
            for key in keys { map[key] = image }
            self.map = Mutex(map)
        }
    }

    /// `ops` gets (or sets) spread over `threads` threads; one sample per iteration.
    static func dictionary(set: Bool, ops: Int, threads: Int, iterations: Int, warmup: Int) -> BenchReport {
        let store = Store(entries: 1024)
        let perThread = ops / threads
        let hits = Atomic<Int>(0)
        let samples = Sampler.samples(iterations: iterations, warmup: warmup) {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var found = 0
                let keys = store.keys
                for i in 0..<perThread {
                    let key = keys[(i &+ thread &* 7) & 1023]
                    if set {
                        store.map.withLock { $0[key] = store.image }
                        found &+= 1
                    } else if store.map.withLock({ $0[key] }) != nil {
                        found &+= 1
                    }
                }
                hits.add(found, ordering: .relaxed)
            }
        }
        return BenchReport(mode: set ? BenchMode.dictionarySet.rawValue : BenchMode.dictionaryGet.rawValue,
                           ok: hits.load(ordering: .relaxed) > 0, samples: samples,
                           opsPerSample: perThread * threads, peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// `ops` times: open the file, size it, read it whole into a fresh buffer, close; with
    /// `threads` > 1, the `ops` shared among that many threads reading at once.
    static func rawRead(path: String, ops: Int, threads: Int, iterations: Int, warmup: Int) throws -> BenchReport {
        let tally = Tally()
        let perThread = ops / threads
        let samples = try Sampler.samples(iterations: iterations, warmup: warmup) {
            if threads == 1 {
                for _ in 0..<ops { tally.bytes.add(try readWhole(path), ordering: .relaxed) }
                return
            }
            let group = DispatchGroup()
            for _ in 0..<threads {
                group.enter()
                Thread {
                    var bytes = 0
                    for _ in 0..<perThread {
                        guard let count = try? readWhole(path) else { tally.failed.store(true, ordering: .relaxed); break }
                        bytes &+= count
                    }
                    tally.bytes.add(bytes, ordering: .relaxed)
                    group.leave()
                }.start()
            }
            group.wait()
        }
        return BenchReport(mode: BenchMode.rawRead.rawValue, ok: tally.bytes.load(ordering: .relaxed) > 0 && !tally.failed.load(ordering: .relaxed),
                           samples: samples, opsPerSample: threads == 1 ? ops : perThread * threads,
                           peakRSSBytes: ProcessMemory.peakResidentBytes())
    }

    /// What the reading threads found; a class so their closures can share it.
    final class Tally: Sendable {
        let bytes = Atomic<Int>(0)
        let failed = Atomic<Bool>(false)
    }

    private static func readWhole(_ path: String) throws -> Int {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw UsageError("cannot open \(path)") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw UsageError("cannot stat \(path)") }
        let size = Int(info.st_size)
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var done = 0
            while done < size, let base = buffer.baseAddress {
                let got = read(fd, base + done, size - done)
                if got <= 0 { break }
                done += got
            }
            initialized = done
        }
        return bytes.count
    }
}
