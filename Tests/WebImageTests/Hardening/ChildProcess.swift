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
        /// The child's peak resident set size in bytes.
        var peakResidentBytes: Int
    }

    /// The built `webimage` tool beside the running test binary (so sanitizer builds in
    /// their own scratch paths use their own tool), else in `.build/debug`.
    static var webimageTool: URL {
        let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let beside = here.appendingPathComponent("webimage")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Corpus.packageRoot.appendingPathComponent(".build/debug/webimage")
    }

    /// Starts `executable` with `arguments`, standard output to a temporary file.
    static func spawn(_ executable: URL, _ arguments: [String], stdout: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return pid
    }

    /// Waits for `pid` to end and collects its status and peak memory.
    static func wait(_ pid: pid_t, stdout: String) -> Outcome {
        var highWater = 0
        // Until the child is a zombie (its memory gone, VmHWM no longer listed).
        while let kilobytes = highWaterKilobytes(of: pid) {
            highWater = max(highWater, kilobytes * 1024)
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
            peakResidentBytes: highWater > 0 ? highWater : usage.ru_maxrss * 1024)  // Linux reports kilobytes
    }

    /// The `VmHWM` of a live process in kilobytes, or `nil` once it has exited.
    static func highWaterKilobytes(of pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.dropFirst(6).split(separator: " ").first ?? "")
    }

    /// Runs `executable` to the end.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) throws -> Outcome {
        let stdout = directory.appendingPathComponent("stdout-\(UUID().uuidString)").path
        let pid = try spawn(executable, arguments, stdout: stdout)
        return wait(pid, stdout: stdout)
    }
}
