#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One growable byte buffer that a column chunk's pages are read or decompressed into, and
/// that the column's byte-array values are then slices of (so no value is copied).
///
/// Large buffers are mapped with transparent huge pages requested: a row group's column is
/// tens of megabytes written once, and faulting it in 4 KiB at a time cost a quarter of the
/// reader's time.
final class ByteHeap: @unchecked Sendable {  // written while one thread decodes its chunk, read-only once returned
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private var isMapped: Bool
    var count = 0

    private static let hugePage = 2 << 20

    init(capacity: Int) {
        (base, self.capacity, isMapped) = Self.allocate(max(capacity, 16))
    }

    deinit { Self.free(base, capacity, isMapped) }

    private static func allocate(_ size: Int) -> (UnsafeMutableRawPointer, Int, Bool) {
        #if os(Linux)
        if size >= hugePage {
            let rounded = (size + hugePage - 1) / hugePage * hugePage
            let mapped = mmap(nil, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if let mapped, mapped != MAP_FAILED {
                _ = madvise(mapped, rounded, MADV_HUGEPAGE)  // Advice only: 4 KiB pages work too.
                return (mapped, rounded, true)
            }
        }
        #endif
        return (UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16), size, false)
    }

    private static func free(_ base: UnsafeMutableRawPointer, _ capacity: Int, _ isMapped: Bool) {
        if isMapped { munmap(base, capacity) } else { base.deallocate() }
    }

    /// Makes room for `extra` more bytes, doubling so a wrong size hint costs amortized copies only.
    func reserve(_ extra: Int) {
        let needed = count + extra
        guard needed > capacity else { return }
        let (newBase, newCapacity, newIsMapped) = Self.allocate(max(needed, capacity * 2))
        newBase.copyMemory(from: base, byteCount: count)
        Self.free(base, capacity, isMapped)
        (base, capacity, isMapped) = (newBase, newCapacity, newIsMapped)
    }

    /// The free space after `count` (call ``reserve(_:)`` first).
    var tail: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base + count, count: capacity - count) }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    func append(_ source: UnsafeRawBufferPointer) {
        reserve(source.count)
        if let from = source.baseAddress { (base + count).copyMemory(from: from, byteCount: source.count) }
        count += source.count
    }
}
