#if os(Linux)
import Glibc

/// The page faults the calling thread traps on in user space, from the kernel's perf
/// software event (what `perf stat -e page-faults` counts).
///
/// `getrusage`'s `ru_minflt` cannot tell a trap from a prefault: it also counts the pages
/// a system call such as `madvise(MADV_POPULATE_WRITE)` faults in for the thread (checked
/// on Linux 6.18: 256 for populating 1 MB, then 0 for writing it). This event skips those.
/// `nil` where the kernel refuses `perf_event_open` (`perf_event_paranoid` 3, seccomp).
final class PageFaultCounter {
    private let descriptor: Int32

    init?() {
        #if arch(x86_64)
        let number = 298  // __NR_perf_event_open
        #elseif arch(arm64)
        let number = 241
        #else
        return nil
        #endif
        // The call has no glibc wrapper and `syscall` is variadic, which Swift cannot
        // call directly; glibc's `syscall` only moves its integer arguments into place.
        typealias Syscall = @convention(c) (Int, UnsafeRawPointer?, Int32, Int32, Int32, UInt) -> Int
        guard let symbol = dlsym(nil, "syscall") else { return nil }
        let syscall = unsafeBitCast(symbol, to: Syscall.self)
        // struct perf_event_attr, first version (64 bytes): a counting software event,
        // enabled from the start, user space only.
        var attr = [UInt8](repeating: 0, count: 64)
        attr.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(1), toByteOffset: 0, as: UInt32.self)  // PERF_TYPE_SOFTWARE
            raw.storeBytes(of: UInt32(64), toByteOffset: 4, as: UInt32.self)  // size
            raw.storeBytes(of: UInt64(2), toByteOffset: 8, as: UInt64.self)  // PERF_COUNT_SW_PAGE_FAULTS
            raw.storeBytes(of: UInt64(1 << 5 | 1 << 6), toByteOffset: 40, as: UInt64.self)  // exclude_kernel, _hv
        }
        // This thread (pid 0) on any CPU (-1), no group (-1), no flags.
        let fd = attr.withUnsafeBytes { syscall(number, $0.baseAddress, 0, -1, -1, 0) }
        guard fd >= 0, let descriptor = Int32(exactly: fd) else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Traps counted since the counter was opened.
    var count: UInt64 {
        var value: UInt64 = 0
        return read(descriptor, &value, 8) == 8 ? value : 0
    }

    /// Whether this process may count its own page faults.
    static var isAvailable: Bool { PageFaultCounter() != nil }
}
#endif
