import Dispatch
import Foundation

/// Loads images from `file:` URLs: reads on a background queue (never blocking the
/// caller or Swift's cooperative pool), then decodes on the decode queue.
///
/// A missing file, a directory or an unreadable path fails with
/// ``WebImageError/Code/invalidURL``; a file over ``maxBytes`` with
/// ``WebImageError/Code/responseTooLarge``.
public final class FileImageLoader: ImageLoader {
    /// The coders used when the context names none.
    public let coders: any ImageCoder
    /// Where decoding runs.
    public let decodeQueue: DecodeQueue
    /// Files larger than this are refused. Default 100 MiB.
    public let maxBytes: Int
    private let callbackQueue = DispatchQueue(label: "WebImage.FileImageLoader.callbacks")
    private static let readQueue = DispatchQueue(label: "WebImage.FileImageLoader.read", attributes: .concurrent)

    /// Creates a loader decoding with `coders` on `decodeQueue`, refusing files over `maxBytes`.
    public init(
        coders: any ImageCoder = ImageCodersManager.shared,
        decodeQueue: DecodeQueue = .shared,
        maxBytes: Int = 100 * 1024 * 1024
    ) {
        self.coders = coders
        self.decodeQueue = decodeQueue
        self.maxBytes = maxBytes
    }

    /// `true` for `file:` URLs.
    public func canRequestImage(for url: URL?) -> Bool { url?.isFileURL ?? false }

    /// Reads the file off the caller's thread, then decodes it; see ``ImageLoader``.
    public func requestImage(
        with url: URL?,
        options: DownloaderOptions,
        context: ImageLoaderContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        guard let url, url.isFileURL else {
            let error = WebImageError(.invalidURL, "Not a file URL: \(url?.redactedForLog ?? "nil")")
            return LocalImageLoad.fail(url: url, error, queue: context.callbackQueue ?? callbackQueue, completed: completed)
        }
        let limit = maxBytes
        return LocalImageLoad.start(
            url: url, options: options, context: context, coders: coders, decodeQueue: decodeQueue,
            callbackQueue: callbackQueue, progress: progress, completed: completed
        ) { () async throws(WebImageError) -> Data in
            let result = await withCheckedContinuation { continuation in
                Self.readQueue.async { continuation.resume(returning: Self.read(url, limit: limit)) }
            }
            return try result.get()
        }
    }

    /// Missing files may appear later, so they are not blocked; other failures are.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        error.code != .invalidURL && !Self.isNeverBlocked(error)
    }

    private static func read(_ url: URL, limit: Int) -> Result<Data, WebImageError> {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .failure(WebImageError(.invalidURL, "No file at \(path)"))
        }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            // Read one byte past the limit to tell "exactly at the limit" from "over it".
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                return .failure(WebImageError(.responseTooLarge, "\(path) is larger than \(limit) bytes"))
            }
            return .success(data)
        } catch {
            return .failure(WebImageError(.invalidURL, "Cannot read \(path): \(error)", underlying: SendableErrorBox(error)))
        }
    }
}
