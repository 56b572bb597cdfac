#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// Appends one JSON line per finished URL to `--manifest FILE`, on its own serial queue.
///
/// Each line goes out in one `write(2)` to a file opened with `O_APPEND`, after the
/// URL's output file was renamed into place, so a line saying `"ok":true` always names
/// a complete file. A job killed mid-write can leave a partial last line: ``ManifestIndex``
/// ignores lines that do not parse, and the next run starts on a new line.
///
/// Bounded: lines queued and not yet written hold at most ``maxQueuedBytes``; past it,
/// ``append(_:)`` waits until they are written, so a slow or stalled manifest file holds
/// the job back instead of filling its memory.
final class ManifestWriter: Sendable {
    private let fd: Int32
    /// Where the lines are written, in order (internal for the tests, which stall it).
    let queue = DispatchQueue(label: "webimage.bulk.manifest")
    /// Bytes of lines queued and not yet written.
    private let queued = Atomic<Int>(0)
    /// The most bytes of lines that wait to be written before ``append(_:)`` waits too:
    /// 1 MiB (about 5,000 lines) unless given.
    let maxQueuedBytes: Int

    /// Opens (creating) `path` for appending. Throws a usage error when it cannot.
    init(path: String, maxQueuedBytes: Int = 1 << 20) throws {
        self.maxQueuedBytes = max(1, maxQueuedBytes)
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ValidationError("cannot open --manifest \(path): \(String(cString: strerror(errno)))")
        }
        // A line cut short by a killed run must not swallow the next one.
        var last: UInt8 = 10
        let size = lseek(fd, 0, SEEK_END)
        if size > 0, pread(fd, &last, 1, size - 1) == 1, last != 10 { _ = enqueue("") }
    }

    deinit { close(fd) }

    /// Bytes of lines queued and not yet written (tests).
    var queuedBytes: Int { queued.load(ordering: .relaxed) }

    /// Queues `line` (without its newline); when more than ``maxQueuedBytes`` are then
    /// waiting, returns only once every line queued so far is written.
    func append(_ line: String) async {
        if enqueue(line) > maxQueuedBytes { await flush() }
    }

    /// Queues `line` and returns the bytes now waiting.
    private func enqueue(_ line: String) -> Int {
        let bytes = Array((line + "\n").utf8)
        let waiting = queued.add(bytes.count, ordering: .relaxed).newValue
        queue.async { [self] in
            defer { queued.subtract(bytes.count, ordering: .relaxed) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
        return waiting
    }

    /// Waits until every queued line is written.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}

/// The URLs a manifest lists as ok, for `--resume`: 64-bit FNV-1a hashes of the URLs as
/// the manifest shows them, so ten million finished URLs take about 160 MB, not the URLs'
/// own size. (Two URLs colliding among ten million: about 3 in a million.)
struct ManifestIndex: Sendable {
    private(set) var finished: Set<UInt64> = []

    /// Reads `path` line by line; a missing file is an empty manifest.
    static func read(path: String) throws -> ManifestIndex {
        var index = ManifestIndex()
        guard let file = fopen(path, "r") else {
            if errno == ENOENT { return index }
            throw ValidationError("cannot read --manifest \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let data = Data(bytes: line, count: strlen(line))
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["ok"] as? Bool == true, let url = object["url"] as? String else { continue }
            index.finished.insert(hash(url))
        }
        return index
    }

    func contains(_ shownURL: String) -> Bool { finished.contains(Self.hash(shownURL)) }

    /// FNV-1a, 64 bits: stable across runs, unlike `Hasher`.
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }
}
