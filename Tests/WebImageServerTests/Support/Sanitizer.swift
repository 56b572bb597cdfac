#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process was built with ThreadSanitizer (`make test-tsan`). Its shadow
/// memory (several bytes per byte the program touches) and its allocator make a process's
/// resident size meaningless, so bounds on peak RSS are checked by `make test` only.
enum Sanitizer {
    static let thread: Bool = {
        #if canImport(Glibc)
        // The TSan runtime is linked into the executable and exports its entry points.
        return dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
        #else
        return false
        #endif
    }()
}
