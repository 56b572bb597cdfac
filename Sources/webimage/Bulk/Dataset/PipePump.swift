#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Copies a ``GzipFile``'s (decompressed) bytes into a pipe on a thread of its own, so a
/// reader that takes an `InputStream` (CSV.swift) reads gzip and plain files alike.
///
/// **Bounds.** The pipe holds at most the kernel's pipe buffer (64 KiB on Linux); the
/// thread blocks in `write` until the reader takes more, so the whole list never sits in
/// memory. Dropping the pump closes the read end: the thread's next write fails and it ends.
final class PipePump: Sendable {
    /// The end to read from (owned by the pump; closed when it goes).
    let readDescriptor: Int32
    private let failure = Failure()

    /// The copy's read error, shared with its thread (which may outlive the pump).
    private final class Failure: Sendable {
        let error = Mutex<DatasetInputError?>(nil)
    }

    init(file: GzipFile) throws(DatasetInputError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw DatasetInputError("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // A reader that stops early closes its end; the writer then gets EPIPE, not a signal.
        signal(SIGPIPE, SIG_IGN)
        readDescriptor = fds[0]
        let writeDescriptor = fds[1]
        let failure = failure
        // The file is handed to the thread and used by it alone from here on.
        nonisolated(unsafe) let file = file
        let thread = Thread {
            defer { close(writeDescriptor) }
            do {
                while true {
                    let chunk = try file.read()
                    if chunk.isEmpty { return }
                    var offset = 0
                    while offset < chunk.count {
                        let n = chunk[offset...].withUnsafeBytes { write(writeDescriptor, $0.baseAddress, $0.count) }
                        if n < 0 && errno == EINTR { continue }
                        if n <= 0 { return }
                        offset += n
                    }
                }
            } catch {
                let readError = (error as? DatasetInputError) ?? DatasetInputError("\(error)")
                failure.error.withLock { $0 = readError }
            }
        }
        thread.name = "webimage.bulk.pipe"
        thread.start()
    }

    deinit { close(readDescriptor) }

    /// The read error that ended the copy early, if any (check at the end of the stream).
    var error: DatasetInputError? { failure.error.withLock { $0 } }
}
