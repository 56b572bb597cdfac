#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import WebImage

/// Writes a bulk job's images into `--out DIR`.
///
/// **Names.** A URL's file is named after its 0-based index in the list (blank lines and
/// comments not counted), nine digits at least, with the format's extension:
/// `000000042.jpg`. With `--out-layout shards:N` it goes into the folder of its index
/// divided by N, five digits at least: `00004/000042000.jpg` for N = 10000. Index-based
/// names are the same on every run, shard and machine, so shards can share one `DIR`.
///
/// **Encoding.** Without `--thumbnail`, `--quality` and a `--format` other than the
/// source's, the downloaded bytes are written as they came. Otherwise the image is
/// encoded as `--format` (default: its own format where an encoder exists, else PNG)
/// at `--quality` (default 90); `--format` writes the first frame of an animation.
///
/// **Atomic.** Each file is written under `DIR/.partial/<job>/`, then renamed into place,
/// so a killed job leaves no half-written file among the results; the next run of the
/// same job (same `--shard`) deletes its `.partial` folder before it starts.
///
/// **Threads.** Encoding runs on ``DecodeQueue/shared`` (one slot per core); the
/// file writes on ``BlockingIOPool/shared``.
struct OutputWriter: Sendable {
    let directory: URL
    /// As given on the command line, for the `file` field of records.
    let directoryPath: String
    let filesPerFolder: Int?
    let format: ImageFormat?
    /// `--quality`, or `nil` for 90 (and for keeping the source's own bytes when it can).
    let quality: Int?
    private let partial: URL

    init(directory path: String, filesPerFolder: Int?, format: ImageFormat?, quality: Int?, jobName: String) {
        directoryPath = path
        directory = URL(fileURLWithPath: path, isDirectory: true)
        self.filesPerFolder = filesPerFolder
        self.format = format
        self.quality = quality
        partial = directory.appendingPathComponent(".partial", isDirectory: true)
            .appendingPathComponent(jobName, isDirectory: true)
    }

    /// Removes what a killed run of this job left in its partial folder and makes it
    /// afresh. Blocking: call it before the job starts.
    func prepare() throws {
        let manager = FileManager.default
        try? manager.removeItem(at: partial)
        try manager.createDirectory(at: partial, withIntermediateDirectories: true)
    }

    /// Removes the partial folder (and `.partial` itself when no other job uses it).
    func finish() async {
        let partial = partial
        _ = try? await BlockingIOPool.shared.run {
            try? FileManager.default.removeItem(at: partial)
            _ = rmdir(partial.deletingLastPathComponent().path)
        }
    }

    /// The name of index `index`'s file, relative to the directory.
    func relativePath(index: Int, format: ImageFormat) -> String {
        relativePath(index: index, fileExtension: format.fileExtension)
    }

    private func relativePath(index: Int, fileExtension: String) -> String {
        let name = String(format: "%09d", index) + "." + fileExtension
        guard let filesPerFolder else { return name }
        return String(format: "%05d", index / filesPerFolder) + "/" + name
    }

    /// Encodes and writes `response`'s image; returns the file's path (as `--out`
    /// joined with its name) and size.
    func write(_ response: ImageResponse, index: Int, isThumbnail: Bool) async throws -> (path: String, bytes: Int) {
        let image = response.image
        let bytes: Data
        let outputFormat: ImageFormat
        if format == nil || format == image.format, quality == nil, !isThumbnail, let data = response.data,
           image.format != .undefined {
            // The source bytes as they came: no decode-encode loss, no CPU.
            (bytes, outputFormat) = (data, image.format)
        } else {
            let coders = ImageCodersManager.shared
            let target = format ?? (coders.canEncode(to: image.format) ? image.format : .png)
            let options = ImageEncodeOptions(quality: Double(quality ?? 90) / 100, firstFrameOnly: format != nil)
            bytes = try await DecodeQueue.shared.run { try coders.encode(image, as: target, options: options) }
            outputFormat = target
        }
        let relative = relativePath(index: index, format: outputFormat)
        let final = directory.appendingPathComponent(relative)
        let temporary = partial.appendingPathComponent(String(format: "%09d", index) + ".tmp")
        let failure: String? = try await BlockingIOPool.shared.run {
            Self.writeAtomically(bytes, temporary: temporary, final: final)
        }
        if let failure { throw WebImageError(.cacheIOFailed, "Cannot write \(final.path): \(failure)") }
        return (directoryPath + (directoryPath.hasSuffix("/") ? "" : "/") + relative, bytes.count)
    }

    /// Gives index `index` a file of its own with the bytes of `file`, a path ``write(_:index:isThumbnail:)``
    /// returned for an earlier index of the same URL: a hard link where the file system
    /// allows it, else a copy; atomic as any write. Returns the new path and size.
    func copy(_ file: String, index: Int) async throws -> (path: String, bytes: Int) {
        let prefix = directoryPath + (directoryPath.hasSuffix("/") ? "" : "/")
        guard file.hasPrefix(prefix) else { throw WebImageError(.cacheIOFailed, "Cannot copy \(file): not a file of this job") }
        let source = directory.appendingPathComponent(String(file.dropFirst(prefix.count)))
        let relative = relativePath(index: index, fileExtension: source.pathExtension)
        let final = directory.appendingPathComponent(relative)
        let temporary = partial.appendingPathComponent(String(format: "%09d", index) + ".tmp")
        let outcome: Result<Int, WebImageError> = try await BlockingIOPool.shared.run {
            unlink(temporary.path)
            if link(source.path, temporary.path) == 0 {
                var info = stat()
                let size = stat(temporary.path, &info) == 0 ? Int(info.st_size) : 0
                if rename(temporary.path, final.path) == 0 { return .success(size) }
                unlink(temporary.path)
            }
            // No hard links here (or the shard folder is new): read and write it whole.
            guard let bytes = FileManager.default.contents(atPath: source.path) else {
                return .failure(WebImageError(.cacheIOFailed, "Cannot read \(source.path)"))
            }
            if let failure = Self.writeAtomically(bytes, temporary: temporary, final: final) {
                return .failure(WebImageError(.cacheIOFailed, "Cannot write \(final.path): \(failure)"))
            }
            return .success(bytes.count)
        }
        return (prefix + relative, try outcome.get())
    }

    /// Writes `temporary` (no fsync: ``PlainFile``), then renames it to `final`; the error's
    /// text, or `nil`.
    private static func writeAtomically(_ bytes: Data, temporary: URL, final: URL) -> String? {
        if let failure = PlainFile.save(bytes, to: temporary.path) {
            unlink(temporary.path)
            return failure
        }
        if rename(temporary.path, final.path) != 0 {
            guard errno == ENOENT else { return String(cString: strerror(errno)) }
            // The shard folder is new; other writers may be making it at the same time.
            if mkdir(final.deletingLastPathComponent().path, 0o755) != 0 && errno != EEXIST {
                return String(cString: strerror(errno))
            }
            if rename(temporary.path, final.path) != 0 { return String(cString: strerror(errno)) }
        }
        return nil
    }
}
