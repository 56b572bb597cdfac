#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Faults in fresh memory with one call before a decoder or copy writes all of it.
///
/// Memory the process has not touched since the allocator got it from the kernel costs
/// one trap per 4 KB page on first write; `MADV_POPULATE_WRITE` (Linux 5.14) backs the
/// whole range in one system call instead. The zeroing and accounting of each new page
/// remain (≈ 1.2 µs a page in the bench VM); the trap, ≈ 0.3 µs of ≈ 1.5, goes. That
/// matters wherever decoded images are kept, so each new one lands in fresh pages:
/// - the 380 frames of an eager 472×298 GIF (52,000 faults): 93 → 78 ms CPU for their
///   copies (C harness, 2026-11-27);
/// - an `ImageManager` cold load of 1,000 560×372 JPEGs (833 KB, 203 pages each), every
///   one kept by the memory cache: 223 k → 20 k page faults, 1.208 → 1.175 s CPU
///   (caches on tmpfs, medians of 15 alternated runs, 15 of 15 faster, paired difference
///   −39 ms, 2026-11-27); the same
///   images as WebP −61 ms of 2.54 s, as PNG −25 ms of 3.26 s (8 runs each).
enum PageFaults {
    /// How many buffers were big enough to be asked for (tests: a decoder that stops
    /// asking is seen whatever state the allocator is in).
    static let requests = Atomic<Int>(0)

    /// Asks the kernel to back the whole pages inside `buffer` now (Linux; elsewhere
    /// nothing). Only a hint: kernels before 5.14 refuse it, and the writes fault as before.
    static func prefault(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        #if os(Linux)
        // Below a few pages the call costs more than the faults it saves.
        guard let base = buffer.baseAddress, buffer.count >= 1 << 16 else { return }
        requests.add(1, ordering: .relaxed)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let first = (Int(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(page - 1)
        guard end > first, let start = UnsafeMutableRawPointer(bitPattern: first) else { return }
        // Memory the allocator recycled is already backed, and populating it anyway walks
        // and re-marks every page (≈ 30 µs for 833 KB, which made the bare downloader,
        // whose decode buffers are mostly recycled, 30-40 ms slower per 1,000 images);
        // `mincore` (≈ 0.8 µs) finds the first page never touched, and only the range
        // from there is asked for (a heap grown at its top is fresh at its end).
        let pages = (end - first) / page
        let firstFresh = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: pages) { residency -> Int? in
            guard let vector = residency.baseAddress, mincore(start, end - first, vector) == 0 else { return 0 }
            return residency.firstIndex { $0 & 1 == 0 }
        }
        guard let firstFresh else { return }
        _ = madvise(start + firstFresh * page, end - first - firstFresh * page, MADV_POPULATE_WRITE)
        #endif
    }
}
