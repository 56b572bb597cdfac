import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program the deploy tests run beside them (`webimage serve`, nginx, chromedriver):
/// stdout and stderr go to a log file (never a pipe nobody drains), and it ends with
/// ``kill(_:)`` or ``stop()``, by its own pid.
///
/// Waiting never blocks a thread: ``waitForExit(timeout:)`` polls with `Task.sleep`.
final class ChildProcess: Sendable {
    let name: String
    let log: URL
    let process: Process

    /// Starts `executable arguments…`, logging to `log`, with this process's environment
    /// plus `environment` (a value there replaces the inherited one).
    init(_ name: String, executable: URL, arguments: [String], environment: [String: String] = [:], log: URL) throws {
        self.name = name
        self.log = log
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
        self.process = process
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The last lines of the log, for failure messages.
    var logTail: String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(8).joined(separator: "\n")
    }

    /// Sends `signal` to this process only.
    func kill(_ signal: Int32) {
        if process.isRunning { _ = Glibc.kill(pid, signal) }
    }

    /// Waits up to `timeout` for the process to end; whether it did.
    @discardableResult
    func waitForExit(timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !process.isRunning
    }

    /// SIGTERM, then SIGKILL when it has not ended within `grace`.
    func stop(grace: Duration = .seconds(10)) async {
        kill(SIGTERM)
        if await !waitForExit(timeout: grace) {
            kill(SIGKILL)
            await waitForExit()
        }
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The first of `names` found as an executable in `PATH` or the usual sbin directories.
    static func find(_ names: [String]) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]
        for name in names {
            for directory in directories {
                let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }
}
