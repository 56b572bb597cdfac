#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// The disk cache survives its writer dying: a child process storing entries as fast as
/// it can is killed with SIGKILL, and every entry left behind reads back exactly as one
/// of the payloads written for its key, or not at all.
@Suite("Hardening: disk cache crash safety", .timeLimit(.minutes(2)))
struct DiskCacheCrashTests {
    static let writerVariable = "WEBIMAGE_CRASH_WRITER_DIR"
    static let keyCount = 40

    /// A payload for `key` (0..<keyCount) and `generation` that proves its own integrity:
    /// a header naming key, generation and length, then bytes derived from all three.
    static func payload(key: Int, generation: Int) -> Data {
        let length = 1024 + (key * 7919 + generation * 104_729) % (192 * 1024)
        var bytes = [UInt8](repeating: 0, count: 12 + length)
        for (i, value) in [key, generation, length].enumerated() {
            for b in 0..<4 { bytes[i * 4 + b] = UInt8(truncatingIfNeeded: value >> (8 * b)) }
        }
        for j in 0..<length { bytes[12 + j] = UInt8(truncatingIfNeeded: key &* 31 &+ generation &* 7 &+ j &* 13) }
        return Data(bytes)
    }

    /// Whether `data` is a complete payload written for `key`.
    static func isIntact(_ data: Data, key: Int) -> Bool {
        guard data.count >= 12 else { return false }
        let bytes = [UInt8](data)
        func field(_ i: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[i * 4 + $1]) << (8 * $1) } }
        guard field(0) == key, data.count == 12 + field(2) else { return false }
        return payload(key: key, generation: field(1)) == data
    }

    static func key(_ index: Int) -> String { "https://crash.example/\(index).png" }

    /// The child's side: runs only in the process `killedWriter` starts (with the
    /// environment variable naming the directory), storing until it is killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[writerVariable] != nil))
    func writeUntilKilled() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.writerVariable])
        let cache = DiskCache(directory: URL(fileURLWithPath: directory))
        var generation = 0
        while true {
            generation += 1
            for index in 0..<Self.keyCount {
                try await cache.store(Self.payload(key: index, generation: generation), forKey: Self.key(index))
                if index % 8 == 0 {
                    try await cache.setExtendedData(Data("gen \(generation)".utf8), forKey: Self.key(index))
                }
            }
        }
    }

    @Test("a writer killed with SIGKILL leaves no entry that reads back wrong")
    func killedWriter() async throws {
        let dir = try TemporaryDirectory()
        let cacheDir = dir.url.appendingPathComponent("cache")
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        for round in 0..<3 {
            let pid = try ChildProcess.spawn(
                binary, ["--testing-library", "swift-testing", "--filter", "DiskCacheCrashTests/writeUntilKilled"],
                environment: [Self.writerVariable: cacheDir.path], stdout: dir.url.appendingPathComponent("out").path)
            // Kill it mid-stream: once entries exist, at a different moment each round.
            _ = await ManagerTestKit.eventually(20) {
                TemporaryDirectory.names(in: cacheDir).filter { !$0.hasPrefix(".") }.count >= 10 + round * 10
            }
            try await Task.sleep(for: .milliseconds(37 * round))
            kill(pid, SIGKILL)
            let outcome = ChildProcess.wait(pid, stdout: dir.url.appendingPathComponent("out").path)
            #expect(outcome.signal == SIGKILL, "the writer ended on its own: \(outcome)")
        }
        let cache = DiskCache(directory: cacheDir)
        var found = 0
        for index in 0..<Self.keyCount {
            guard let data = await cache.data(forKey: Self.key(index)) else { continue }
            found += 1
            #expect(Self.isIntact(data, key: index), "entry \(index) (\(data.count) bytes) reads back wrong")
            if let extended = await cache.extendedData(forKey: Self.key(index)) {
                #expect(String(decoding: extended, as: UTF8.self).hasPrefix("gen "))
            }
        }
        #expect(found >= 10, "the writer stored only \(found) entries")
        // Whatever the killed writers left half-done is hidden, never an entry.
        #expect(await cache.totalCount() == found)
    }
}
