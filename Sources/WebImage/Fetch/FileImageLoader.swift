#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Loads images from `file:` URLs: reads regular files on a bounded ``BlockingIOPool``
/// (never on the caller's thread or Swift's cooperative pool), then decodes on the
/// decode queue.
///
/// Off in ``ImageLoadersManager``'s default schemes (see ``LoaderSchemes``). Only regular
/// files are read: a FIFO, a device (`/dev/stdin`, `/dev/zero`), a socket or a directory
/// fails with ``WebImageCodecs/WebImageError/Code/invalidURL`` without a read that could wait forever
/// (the file is opened non-blocking and checked with `fstat` first). A missing or
/// unreadable path also fails with ``WebImageCodecs/WebImageError/Code/invalidURL``; a file over
/// ``maxBytes`` with ``WebImageCodecs/WebImageError/Code/responseTooLarge``.
public final class FileImageLoader: ImageLoader {
    /// The coders used when the context names none.
    public let coders: any ImageCoder
    /// Where decoding runs.
    public let decodeQueue: DecodeQueue
    /// Where the files are read. Default ``BlockingIOPool/shared``.
    public let ioPool: BlockingIOPool
    /// Files larger than this are refused. Default 100 MiB.
    public let maxBytes: Int

    /// Creates a loader reading on `ioPool` and decoding with `coders` on `decodeQueue`,
    /// refusing files over `maxBytes`.
    public init(
        coders: any ImageCoder = ImageCodersManager.shared,
        decodeQueue: DecodeQueue = .shared,
        ioPool: BlockingIOPool = .shared,
        maxBytes: Int = 100 * 1024 * 1024
    ) {
        self.coders = coders
        self.decodeQueue = decodeQueue
        self.ioPool = ioPool
        self.maxBytes = maxBytes
    }

    /// `true` for `file:` URLs.
    public func canRequestImage(for url: URL?) -> Bool { url?.isFileURL ?? false }

    /// Reads the file on ``ioPool``, then decodes it; see ``ImageLoader``.
    public func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await LocalImageLoad.load(
            url: url, options: options, context: context, observer: observer, coders: coders, decodeQueue: decodeQueue,
            fetcher: self)
    }

    /// Missing files may appear later, so they are not blocked; other failures are.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        error.code != .invalidURL && !FailedURLPolicy.isNeverBlocked(error)
    }

    /// Reads a regular file of at most `limit` bytes, refusing anything else (a FIFO, a
    /// device, a directory) without waiting on it. Blocks the calling thread: call it on a
    /// ``BlockingIOPool``.
    public static func readRegularFile(_ path: String, limit: Int) -> Result<Data, WebImageError> {
        // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let reason = code == ENOENT || code == ENOTDIR ? "No file at \(path)" : "Cannot open \(path): \(String(cString: strerror(code)))"
            return .failure(WebImageError(.invalidURL, reason))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(WebImageError(.invalidURL, "\(path) is not a regular file"))
        }
        guard Int(info.st_size) <= limit else {
            return .failure(WebImageError(.responseTooLarge, "\(path) is larger than \(limit) bytes"))
        }
        // Read one byte past the limit to tell "exactly at the limit" from "grew past it".
        var data = Data(count: min(Int(info.st_size), limit) + 1)
        var done = 0
        let failed = data.withUnsafeMutableBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            while done < buffer.count {
                let n = read(fd, base + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { return errno }
                if n == 0 { break }
                done += n
            }
            return nil
        }
        if let failed {
            return .failure(WebImageError(.invalidURL, "Cannot read \(path): \(String(cString: strerror(failed)))"))
        }
        guard done <= limit else {
            return .failure(WebImageError(.responseTooLarge, "\(path) is larger than \(limit) bytes"))
        }
        data.count = done
        return .success(data)
    }
}

/// The `file:` fetcher (``ImageFetching``): the file's bytes, read on ``FileImageLoader/ioPool``
/// with the checks of ``FileImageLoader/readRegularFile(_:limit:)``; a file has no validators,
/// so a conditional fetch reads it again.
extension FileImageLoader: ImageFetching {
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        .body(OriginalData(data: try await contents(of: url)), http: nil)
    }

    /// The bytes of the `file:` URL `url`, read on ``ioPool``; what ``fetch(_:validators:)``
    /// hands over, for callers that want the bytes alone (the bulk job's `file:` rows).
    package func contents(of url: URL) async throws(WebImageError) -> Data {
        guard url.isFileURL else { throw WebImageError(.invalidURL, "Not a file URL: \(url.redactedForLog)") }
        let limit = maxBytes
        return try await ioPool.run { Self.readRegularFile(url.path, limit: limit) }.get()
    }
}
