import Foundation
import Testing

/// A one-node Slurm cluster (Debian's `slurm-wlm` and `munge`) started inside a test, as
/// root, with every file (key, sockets, state, logs, pid files) in a temporary folder and
/// free ports of its own, so it touches nothing of the machine's own configuration.
/// ``stop()`` ends the three daemons by their pid files.
final class SlurmCluster: Sendable {
    static let munged = "/usr/sbin/munged"
    static let slurmctld = "/usr/sbin/slurmctld"
    static let slurmd = "/usr/sbin/slurmd"
    static let sbatch = "/usr/bin/sbatch"

    /// Why no cluster can run here, or `nil` when one can.
    static let unavailableReason: String? = {
        guard getuid() == 0 else { return "the Slurm test starts its daemons as root" }
        for tool in [munged, slurmctld, slurmd, sbatch] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing: `make test-deps` installs Debian's slurm-wlm and munge"
        }
        return nil
    }()

    let directory: URL
    let configuration: URL

    private init(directory: URL, configuration: URL) {
        self.directory = directory
        self.configuration = configuration
    }

    /// Starts munged, slurmctld and slurmd in `directory` and waits until the node is idle.
    static func start(in directory: URL) async throws -> SlurmCluster {
        let d = directory.path
        for sub in ["munge", "state", "spool", "log"] {
            try FileManager.default.createDirectory(atPath: "\(d)/\(sub)", withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o711], ofItemAtPath: "\(d)/munge")
        var key = [UInt8](repeating: 0, count: 1024)
        for i in key.indices { key[i] = UInt8.random(in: 0...255) }
        let keyPath = "\(d)/munge/munge.key"
        guard FileManager.default.createFile(atPath: keyPath, contents: Data(key), attributes: [.posixPermissions: 0o400]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keyPath])
        }
        try await run(munged, ["--force", "--socket=\(d)/munge/munge.socket", "--key-file=\(keyPath)",
                               "--log-file=\(d)/log/munged.log", "--pid-file=\(d)/munge/munged.pid",
                               "--seed-file=\(d)/munge/munged.seed"], what: "munged")
        // The machine's short name (slurmd finds its node by it), at 127.0.0.1: no name
        // lookup, nothing leaves loopback.
        let host = try await output("/bin/hostname", ["-s"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let ports = try freePorts(2)
        let conf = """
            ClusterName=webimage-test
            SlurmctldHost=\(host)(127.0.0.1)
            SlurmUser=root
            SlurmdUser=root
            AuthType=auth/munge
            CredType=cred/munge
            AuthInfo=socket=\(d)/munge/munge.socket
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            SelectType=select/cons_tres
            SlurmctldPort=\(ports[0])
            SlurmdPort=\(ports[1])
            StateSaveLocation=\(d)/state
            SlurmdSpoolDir=\(d)/spool
            SlurmctldPidFile=\(d)/slurmctld.pid
            SlurmdPidFile=\(d)/slurmd.pid
            SlurmctldLogFile=\(d)/log/slurmctld.log
            SlurmdLogFile=\(d)/log/slurmd.log
            ReturnToService=2
            JobCompType=jobcomp/none
            AccountingStorageType=accounting_storage/none
            NodeName=\(host) NodeAddr=127.0.0.1 NodeHostname=\(host) CPUs=\(ProcessInfo.processInfo.activeProcessorCount) State=UNKNOWN
            PartitionName=test Nodes=\(host) Default=YES MaxTime=INFINITE State=UP

            """
        let configuration = directory.appendingPathComponent("slurm.conf")
        try conf.write(to: configuration, atomically: true, encoding: .utf8)
        let cluster = SlurmCluster(directory: directory, configuration: configuration)
        do {
            try await run(slurmctld, ["-f", configuration.path], environment: cluster.environment, what: "slurmctld")
            try await run(slurmd, ["-f", configuration.path], environment: cluster.environment, what: "slurmd")
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// `SLURM_CONF` for the cluster's client commands.
    var environment: [String: String] { ["SLURM_CONF": configuration.path] }

    /// `sbatch --wait` of `script` in `directory` with `environment` added; its exit status and output.
    func submit(_ script: URL, in directory: URL, environment extra: [String: String]) async throws -> (Int32, String) {
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env.merge(extra) { $1 }
        return try await Self.runCapturing(Self.sbatch, ["--wait", "--chdir=\(directory.path)", script.path], environment: env)
    }

    /// Ends the daemons (SIGTERM by pid file).
    func stop() {
        for file in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8),
                  let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else { continue }
            kill(pid, SIGTERM)
        }
    }

    /// The logs, for a failure message.
    var logs: String {
        ["log/slurmctld.log", "log/slurmd.log", "log/munged.log"].map {
            "== \($0)\n" + ((try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) ?? "").suffix(2000)
        }.joined(separator: "\n")
    }

    /// Runs a daemon's start command (it forks and returns) and requires exit status 0.
    private static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:], what: String) async throws {
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let (status, text) = try await runCapturing(tool, arguments, environment: env)
        try #require(status == 0, "\(what) did not start (\(status)): \(text)")
    }

    private static func output(_ tool: String, _ arguments: [String]) async throws -> String {
        try await runCapturing(tool, arguments, environment: ProcessInfo.processInfo.environment).1
    }

    /// Runs `tool` to its end, at most `limit`, without blocking the cooperative pool; its
    /// status and its output (stdout and stderr). Spawned and reaped here (posix_spawn, then
    /// waitpid on a thread of its own) rather than through Foundation's `Process`, whose
    /// termination handler never fired for munged's daemonising parent, hanging the test.
    /// Past `limit` the process is killed (status 128 + SIGKILL), so nothing waits forever.
    static func runCapturing(
        _ tool: String, _ arguments: [String], environment: [String: String], limit: Duration = .seconds(150)
    ) async throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("slurm-\(UUID().uuidString).out")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([tool] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The daemons must not inherit this thread's blocked signals (they would ignore
        // stop()'s SIGTERM): an empty mask and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, &attributes, argv, envp)
        try #require(spawned == 0, "cannot start \(tool): \(String(cString: strerror(spawned)))")
        let child = pid
        let killer = Task {
            try await Task.sleep(for: limit)
            kill(child, SIGKILL)
        }
        let status = await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var raw: Int32 = 0
                while waitpid(child, &raw, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, and 128 + signal otherwise, as a shell reports them.
                c.resume(returning: raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f))
            }
        }
        killer.cancel()
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// `count` TCP ports free on this machine now (bound to port 0, then released).
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = INADDR_ANY
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            try #require(bound == 0)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
