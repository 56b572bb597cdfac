import Foundation
import Synchronization
import Testing
import WebImageTestOrigin

/// Shared parts of the bulk-job tests: an origin with many distinct images, list files,
/// and a child process the test can kill.
enum BulkFixture {
    static let jpeg = "jpeg/jpeg-decoder/tower_progressive.jpg"
    static let png = "png/image-png/basi3p01_2.png"

    /// `count` distinct JPEG URLs `/img/N.jpg` on `origin`; while `isSlow` holds true
    /// (when given), those from `fastCount` on answer after two seconds.
    static func serveImages(_ origin: TestOrigin, count: Int, fastCount: Int = .max,
                            isSlow: SlowFlag? = nil) throws -> [String] {
        let body = Array(try Corpus.data(jpeg))
        return (0..<count).map { i in
            let path = "/img/\(i).jpg"
            if i >= fastCount, let isSlow {
                origin.route(path) { _ in
                    .init(body: body, contentType: "image/jpeg", delay: isSlow.isOn ? .seconds(2) : .zero)
                }
            } else {
                origin.route(path, .init(body: body, contentType: "image/jpeg"))
            }
            return origin.url(path).absoluteString
        }
    }

    /// Writes `lines` as a list file in `directory` and returns its path.
    static func list(_ lines: [String], in directory: TemporaryDirectory, name: String = "urls.txt") throws -> String {
        let url = directory.url.appendingPathComponent(name)
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The manifest's lines as JSON objects (a cut last line is skipped).
    static func manifest(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Every regular file under `directory` (relative path → bytes), `.partial` included
    /// when `includingPartial`.
    static func files(in directory: URL, includingPartial: Bool = false) -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else { return result }
        let root = directory.resolvingSymlinksInPath().path + "/"
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let relative = String(url.resolvingSymlinksInPath().path.dropFirst(root.count))
            if !includingPartial && relative.hasPrefix(".partial") { continue }
            result[relative] = try? Data(contentsOf: url)
        }
        return result
    }
}

/// Whether the slow routes of ``BulkFixture/serveImages(_:count:fastCount:isSlow:)`` wait.
final class SlowFlag: Sendable {
    private let state = Mutex(false)
    var isOn: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// A child process with its output in a file; ``kill()`` sends SIGKILL.
final class BulkChild: Sendable {
    private struct State {
        var status: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }

    let process: Process
    private let state = Mutex(State())

    init(_ executable: URL, _ arguments: [String], directory: TemporaryDirectory) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = directory.url.appendingPathComponent("child-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { process in self.ended(process.terminationStatus) }
        try process.run()
    }

    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

    /// The exit status (or signal number) once the child ended.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done = state.withLock { s -> Int32? in
                if let status = s.status { return status }
                s.waiter = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func ended(_ status: Int32) {
        state.withLock { s in
            s.status = status
            return s.waiter.take()
        }?.resume(returning: status)
    }
}
