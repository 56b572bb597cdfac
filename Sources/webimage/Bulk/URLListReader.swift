#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Dispatch
import Foundation

/// One URL of a list: its 0-based index among the list's URLs (blank lines and comments
/// are not counted) and the text of its line, trimmed.
struct BulkEntry: Sendable {
    var index: Int
    var text: String
}

/// Reads a URL list as the job goes, 64 KiB at a time, so a list of any length needs
/// memory only for one chunk and one line. The blocking `read(2)` calls run on the
/// reader's own serial queue, never on the cooperative pool: a stdin pipe that waits
/// for its writer holds that one thread only.
///
/// Lines longer than ``maxLineBytes`` are not kept; they come back as an entry whose
/// text is empty, which the job reports as `invalidURL`. Used by one task at a time.
final class URLListReader {
    /// The longest line kept: 64 KiB, far past any real URL.
    static let maxLineBytes = 64 * 1024
    private static let chunkBytes = 64 * 1024

    private let fd: Int32
    private let ownsFD: Bool
    private let queue = DispatchQueue(label: "webimage.bulk.list")
    private var buffer: [UInt8] = []
    private var start = 0
    private var isAtEnd = false
    private var isOverlong = false
    private var isOverlongLine = false
    private var nextIndex = 0
    /// The read error that ended the list early, if any.
    private(set) var readError: String?

    /// Opens `path` (`-` is stdin). Throws a usage error when it cannot be opened.
    init(path: String) throws {
        if path == "-" {
            fd = STDIN_FILENO
            ownsFD = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ValidationError("cannot read --file \(path): \(String(cString: strerror(errno)))")
            }
            ownsFD = true
        }
    }

    /// An in-memory list (URLs given as arguments).
    init(lines: [String]) {
        fd = -1
        ownsFD = false
        buffer = Array(lines.joined(separator: "\n").utf8) + [10]
        isAtEnd = true
    }

    deinit {
        if ownsFD { close(fd) }
    }

    /// How many URLs were handed out so far.
    var count: Int { nextIndex }

    /// The next URL, or `nil` at the end of the list.
    func next() async -> BulkEntry? {
        while true {
            if let line = takeLine() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.isEmpty && !isOverlongLine || text.hasPrefix("#") { continue }
                isOverlongLine = false
                defer { nextIndex += 1 }
                return BulkEntry(index: nextIndex, text: text)
            }
            if isAtEnd {
                // A last line without a newline.
                guard start < buffer.count else { return nil }
                buffer.append(10)
                continue
            }
            await fill()
        }
    }


    /// The next complete line from the buffer, or `nil` when it holds none.
    private func takeLine() -> String? {
        guard let newline = buffer[start...].firstIndex(of: 10) else {
            if buffer.count - start > Self.maxLineBytes {
                // Drop what there is of the long line and skip the rest of it later.
                isOverlong = true
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            return nil
        }
        var end = newline
        if end > start, buffer[end - 1] == 13 { end -= 1 }
        if end - start > Self.maxLineBytes { isOverlong = true }
        let line = isOverlong ? "" : String(decoding: buffer[start..<end], as: UTF8.self)
        start = newline + 1
        if isOverlong {
            isOverlong = false
            isOverlongLine = true
            return ""
        }
        return line
    }

    /// Reads one more chunk on the reader's queue.
    private func fill() async {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        let fd = fd
        let (bytes, error) = await withCheckedContinuation { (continuation: CheckedContinuation<([UInt8], Int32), Never>) in
            queue.async {
                var chunk = [UInt8](repeating: 0, count: Self.chunkBytes)
                while true {
                    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, Self.chunkBytes) }
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { continuation.resume(returning: ([], errno)); return }
                    continuation.resume(returning: (Array(chunk[0..<n]), 0))
                    return
                }
            }
        }
        if error != 0 { readError = String(cString: strerror(error)) }
        if bytes.isEmpty { isAtEnd = true }
        buffer += bytes
    }
}
