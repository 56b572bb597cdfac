#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore
import WebImage

/// Reads and removes the spool's finished shard files on ``BlockingIOPool/shared``, so the
/// uploading task never blocks a cooperative thread on the disk.
enum SpoolFile {
    /// `count` bytes of `path` from `offset`, straight into a buffer for the request body.
    static func read(_ path: String, offset: Int, count: Int) async throws(S3ObjectError) -> ByteBuffer {
        let result: Result<ByteBuffer, S3ObjectError>
        do {
            result = try await BlockingIOPool.shared.run { readNow(path, offset: offset, count: count) }
        } catch {
            throw S3ObjectError("cannot read the spooled \(path): \(error)")
        }
        return try result.get()
    }

    /// Removes `path` (a file or a folder); a failure only leaves a file in the spool,
    /// which goes with the spool folder at the end of the job.
    static func remove(_ path: String) async {
        _ = try? await BlockingIOPool.shared.run { try? FileManager.default.removeItem(atPath: path) }
    }

    private static func readNow(_ path: String, offset: Int, count: Int) -> Result<ByteBuffer, S3ObjectError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(S3ObjectError("cannot open the spooled \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var done = 0
        while done < count {
            var n = 0
            // The closure reports what it wrote, never pread's -1.
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { space in
                n = pread(fd, space.baseAddress, count - done, off_t(offset + done))
                return max(n, 0)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let why = n == 0 ? "it ended early" : String(cString: strerror(errno))
                return .failure(S3ObjectError("cannot read the spooled \(path): \(why)"))
            }
            done += n
        }
        return .success(buffer)
    }
}
