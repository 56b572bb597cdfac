import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WebImage
import WebImageCodecs

/// Reads `local:///path` sources under a root directory (`--local-root`,
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`), refusing everything that is not a regular file
/// inside the root:
///
/// - the path is resolved lexically: `.` and empty segments dropped, `..` removes the
///   segment before it, and a `..` that would climb above the root is refused (403);
/// - the file is opened non-blocking (so a FIFO cannot hold a thread) and checked on
///   the open descriptor: a directory is 404 (as imgproxy), anything but a regular file
///   (FIFO, socket, device) is 403;
/// - the opened file's real path (`/proc/self/fd`) must lie inside the root's real path:
///   symlinks within the root work, a symlink (or a directory swapped for one) leading
///   out of it is refused (403). The check is on the descriptor that is read, so no
///   rename between check and read can slip another file in;
/// - a missing file is 404, a file over the source size limit 422.
///
/// Validators come from the file: its size and modification time make the `ETag` its
/// results' ETags hash, and the time is the `Last-Modified`.
///
/// The blocking calls run on a ``BlockingIOPool`` (bounded threads and line), never on
/// the caller's task. This is the server's own small reader while the library's file
/// loader is being reworked; it can later delegate to it.
struct LocalFileReader: Sendable {
    /// The root as given, and its real path (symlinks resolved at start).
    let root: URL
    let realRoot: String
    let pool: BlockingIOPool
    let maxBytes: Int

    /// A reader under `root`; `nil` when the root is not an existing directory.
    init?(root: URL, pool: BlockingIOPool, maxBytes: Int) {
        guard let real = realpath(root.path, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        self.root = root
        realRoot = resolved == "/" ? "" : resolved
        self.pool = pool
        self.maxBytes = maxBytes
    }

    /// What went wrong with a file, as the proxy answers it.
    enum ReadFailure: Error, Equatable {
        case outsideRoot, notRegularFile, notFound, tooLarge(Int), unreadable(Int32)
    }

    /// The file at `key` (the source's path, taken literally, leading slashes ignored).
    ///
    /// - Throws: ``ProxyError``: `sourceForbidden` (403) outside the root or not a regular
    ///   file, 404 for a missing file or a directory, `responseTooLarge` (422) over the
    ///   limit, `overloaded` (503) when the I/O pool's line is full.
    func read(_ key: String) async throws(ProxyError) -> OriginalData {
        guard let relative = Self.resolve(key) else { throw .sourceForbidden("The path leaves the local root") }
        let path = realRoot + "/" + relative
        let root = realRoot
        let limit = maxBytes
        let result: Result<OriginalData, ReadFailure>
        do {
            result = try await pool.run { Self.readFile(path, root: root, maxBytes: limit) }
        } catch {
            throw .overloaded
        }
        switch result {
        case .success(let image): return image
        case .failure(.outsideRoot): throw .sourceForbidden("The path leaves the local root")
        case .failure(.notRegularFile): throw .sourceForbidden("The local path is not a regular file")
        case .failure(.notFound):
            // 404 with the not-found row's code, in words that fit a file (no HTTP was spoken).
            var error = ProxyError(WebImageError(.invalidDownloadStatusCode, "No such file", httpStatusCode: 404))
            error.message = "No file at that path under the local root"
            throw error
        case .failure(.tooLarge(let size)):
            throw ProxyError(WebImageError(.responseTooLarge, "The file has \(size) bytes"))
        case .failure(.unreadable(let code)):
            throw code == EACCES ? .sourceForbidden("The local file cannot be read") : ProxyError(WebImageError(.cannotConnect, "errno \(code)"))
        }
    }

    /// `key` resolved lexically, without a leading slash; `nil` when `..` climbs out.
    /// Empty when `key` names the root itself.
    static func resolve(_ key: String) -> String? {
        var parts: [Substring] = []
        for segment in key.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(segment)
            }
        }
        return parts.joined(separator: "/")
    }

    /// Opens, checks and reads one file. Runs on an I/O pool thread.
    private static func readFile(_ path: String, root: String, maxBytes: Int) -> Result<OriginalData, ReadFailure> {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .notFound : code == ELOOP ? .outsideRoot : .unreadable(code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable(errno)) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR { return .failure(.notFound) }
        guard kind == S_IFREG else { return .failure(.notRegularFile) }
        guard let real = realPath(of: fd), real.hasPrefix(root + "/") else { return .failure(.outsideRoot) }
        let size = Int(info.st_size)
        guard size <= maxBytes else { return .failure(.tooLarge(size)) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress?.advanced(by: done), size - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(errno))
            }
            if n == 0 { break }
            done += n
        }
        let seconds = Double(info.st_mtim.tv_sec), nanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        let modified = Date(timeIntervalSince1970: seconds)
        return .success(OriginalData(
            data: Data(bytes.prefix(done)), etag: "\"\(size)-\(nanos)\"", lastModified: HTTPDateFormat.format(modified)))
    }

    /// The path the kernel holds for an open descriptor.
    private static func realPath(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, Int(PATH_MAX))
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
