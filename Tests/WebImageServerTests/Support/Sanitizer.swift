#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process was built with ThreadSanitizer (`make test-tsan`) or
/// AddressSanitizer (`make test-asan-all`). TSan's shadow memory (several bytes per byte the
/// program touches) and ASan's quarantine (freed memory held back, 256 MiB by default) make a
/// process's resident size meaningless, so bounds on peak RSS are checked by `make test` only.
enum Sanitizer {
    static let inflatesMemory: Bool = linked("__tsan_init") || linked("__asan_init")

    /// The sanitizer's runtime is linked into the executable and exports its entry points.
    private static func linked(_ symbol: String) -> Bool {
        #if canImport(Glibc)
        return dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol) != nil
        #else
        return false
        #endif
    }
}
