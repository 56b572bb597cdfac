#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import WebImage

/// Writes a file with plain POSIX calls: open (create or truncate), write until done, close.
///
/// Foundation's `Data.write(to:)` fsyncs every file it writes, atomic or not; for the many
/// small files of a bulk job or a frame dump that is one disk flush per file (380 for the
/// muybridge GIF's frames: 2.9 s of wall time for 1.4 s of CPU), which a job that can be rerun
/// does not need. Callers that promise "whole or absent" write a partial name and rename it.
/// Blocks the calling thread: call it from the blocking-I/O pool in `async` code.
enum PlainFile {
    /// Writes `data` to `path`; the error's text, or `nil`.
    static func save(_ data: Data, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var failure = data.withUnsafeBytes { DiskCache.writeAll(fd, $0) } ? nil : String(cString: strerror(errno))
        if close(fd) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        return failure
    }
}
