#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs a program as a child process and reports how it ended and its peak memory.
///
/// The peak is the child's `VmHWM` (the high-water mark of its own address space, which
/// only grows), read from `/proc/<pid>/status` every millisecond until it exits. The
/// `ru_maxrss` that `wait4` reports cannot be used alone: Linux carries the parent's
/// high-water mark into a child across `exec`, so a child of a large test process always
/// looks large. It is kept as the answer only when no `/proc` reading was possible.
struct ChildProcess {
    struct Outcome {
        /// The exit status, or `nil` when a signal ended the child.
        var exitStatus: Int32?
        /// The signal that ended the child, if one did.
        var signal: Int32?
        /// Everything the child wrote on standard output.
        var output: String
        /// Everything it wrote on standard error (a sanitizer's report lands here).
        var errorOutput = ""
        /// The child's peak resident set size in bytes.
        var peakResidentBytes: Int
        /// The child's peak address-space size in bytes (`VmPeak`; 0 when never read).
        var peakVirtualBytes: Int
    }

    /// Starts `executable` with `arguments` and this process's environment plus
    /// `environment`, standard output to the file `stdout`, standard error to `stderr`.
    static func spawn(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                      stdout: String, stderr: String = "/dev/null") throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    /// Waits for `pid` to end and collects its status and peak memory.
    static func wait(_ pid: pid_t, stdout: String) -> Outcome {
        var highWater = 0, virtualPeak = 0
        // Until the child is a zombie (its memory gone, VmHWM no longer listed).
        while let marks = highWaterKilobytes(of: pid) {
            highWater = max(highWater, marks.resident * 1024)
            virtualPeak = max(virtualPeak, marks.virtual * 1024)
            usleep(1000)
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
        // WIFEXITED / WTERMSIG, which Glibc exposes only as macros.
        let signal = status & 0x7F
        return Outcome(
            exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil,
            signal: signal == 0 ? nil : signal,
            output: output,
            peakResidentBytes: highWater > 0 ? highWater : usage.ru_maxrss * 1024,  // Linux reports kilobytes
            peakVirtualBytes: virtualPeak)
    }

    /// The `VmHWM` and `VmPeak` of a live process in kilobytes, or `nil` once it has exited.
    static func highWaterKilobytes(of pid: pid_t) -> (resident: Int, virtual: Int)? {
        guard let status = readProcFile("/proc/\(pid)/status") else { return nil }
        func value(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        guard let resident = value("VmHWM") else { return nil }
        return (resident, value("VmPeak") ?? 0)
    }

    /// The text of a `/proc` file. Read with plain `read` calls: these files report a
    /// size of 0, which Foundation's readers take at its word.
    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `executable` to the end.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) throws -> Outcome {
        let name = UUID().uuidString
        let stdout = directory.appendingPathComponent("stdout-\(name)").path
        let stderr = directory.appendingPathComponent("stderr-\(name)").path
        let pid = try spawn(executable, arguments, stdout: stdout, stderr: stderr)
        var outcome = wait(pid, stdout: stdout)
        outcome.errorOutput = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        return outcome
    }
}
