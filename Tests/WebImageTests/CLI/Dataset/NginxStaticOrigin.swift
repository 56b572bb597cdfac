import Foundation
import Testing
import WebImageTestOrigin
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx serving a folder as static files on 127.0.0.1, for the jobs whose origin
/// should be the kind of server datasets are downloaded from (sendfile, keep-alive, 404s of
/// its own) rather than the in-process test origin. It runs in the foreground as this
/// process's child with a private prefix (pid, logs, temp paths) and ends by its own pid.
final class NginxStaticOrigin: Sendable {
    let port: Int
    let prefix: URL
    private let process: Process

    var baseURL: String { "http://127.0.0.1:\(port)" }

    struct StartError: Error, CustomStringConvertible { var description: String }

    /// The nginx executable, if installed (`make test-deps` installs Debian's).
    static let binary: URL? = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .map { URL(fileURLWithPath: $0) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }

    private init(port: Int, prefix: URL, process: Process) {
        self.port = port
        self.prefix = prefix
        self.process = process
    }

    /// Starts nginx serving `root` and waits until it accepts connections (10 s at most).
    static func start(root: URL, prefix: URL) async throws -> NginxStaticOrigin {
        let binary = try #require(binary, "nginx is not installed (make test-deps)")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let port = try freePort()
        let config = prefix.appendingPathComponent("nginx.conf")
        try configuration(root: root.path, prefix: prefix.path, port: port).write(to: config, atomically: true, encoding: .utf8)
        let log = prefix.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["-p", prefix.path + "/", "-c", config.path, "-e", prefix.appendingPathComponent("error.log").path]
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
        let origin = NginxStaticOrigin(port: port, prefix: prefix, process: process)
        let deadline = ContinuousClock.now + .seconds(10)
        while !isListening(port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                await origin.stop()
                let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw StartError(description: "nginx did not start on port \(port): \(errors.suffix(1000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return origin
    }

    /// Starts nginx serving `root`, runs `body` with it, and awaits its stop whether `body`
    /// returns or throws.
    static func with<T>(root: URL, prefix: URL, _ body: (NginxStaticOrigin) async throws -> T) async throws -> T {
        let origin = try await start(root: root, prefix: prefix)
        return try await withCleanup { try await body(origin) } cleanup: { await origin.stop() }
    }

    /// SIGTERM to this nginx's master (it stops its worker), SIGKILL after 10 s.
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// One worker is plenty on loopback; as root its workers would run as `nobody`, who may
    /// not read the test's temporary folder, and they only ever listen on 127.0.0.1.
    static func configuration(root: String, prefix: String, port: Int) -> String {
        """
        worker_processes 1;
        daemon off;
        pid \(prefix)/nginx.pid;
        error_log \(prefix)/error.log warn;
        \(getuid() == 0 ? "user root;" : "")
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(prefix)/tmp/body;
            proxy_temp_path \(prefix)/tmp/proxy;
            fastcgi_temp_path \(prefix)/tmp/fastcgi;
            uwsgi_temp_path \(prefix)/tmp/uwsgi;
            scgi_temp_path \(prefix)/tmp/scgi;
            sendfile on;
            keepalive_requests 100000;
            types { image/jpeg jpg; image/png png; }
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port);
                root \(root);
                location / { }
            }
        }

        """
    }

    /// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound, "no free port on 127.0.0.1")
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
