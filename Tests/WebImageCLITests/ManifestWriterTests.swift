import Dispatch
import Foundation
import Testing
@testable import webimage

/// `--manifest`'s writer keeps a bounded line: a stalled manifest file holds the job back
/// instead of filling its memory with lines.
@Suite("ManifestWriter: a bounded line of lines", .timeLimit(.minutes(1)))
struct ManifestWriterTests {
    @Test("past maxQueuedBytes, append waits until the queued lines are written; every line lands, in order")
    func boundedLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("manifest.jsonl").path
        let writer = try ManifestWriter(path: path, maxQueuedBytes: 100)
        let gate = DispatchSemaphore(value: 0)
        writer.queue.async { gate.wait() }   // a stalled file
        let lines = (0..<30).map { String(format: "line-%02d", $0) }   // 8 bytes with the newline
        let appended = Locked(0)
        let job = Task {
            for line in lines {
                await writer.append(line)
                appended.withLock { $0 += 1 }
            }
        }
        // 12 lines (96 bytes) fit; the 13th makes 104 > 100, so its append waits.
        for _ in 0..<200 where appended.withLock({ $0 }) < 12 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(appended.withLock { $0 } == 12, "the append past the limit waits for the stalled file")
        #expect(writer.queuedBytes == 104)
        gate.signal()
        await job.value
        await writer.flush()
        #expect(writer.queuedBytes == 0)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written == lines.map { $0 + "\n" }.joined())
        // The job's own writer: 1 MiB unless given, at least 1 byte.
        #expect(try ManifestWriter(path: path).maxQueuedBytes == 1 << 20)
        #expect(try ManifestWriter(path: path, maxQueuedBytes: 0).maxQueuedBytes == 1)
    }
}
