import AsyncHTTPClient
import Foundation

/// Debian's nginx on a loopback port in front of `webimage serve` instances, configured
/// by the shipped `deploy/nginx.conf` itself: only the lines it marks "test:" change
/// (upstream servers, listen address, cache path), everything else is included verbatim.
/// The server runs in the foreground as a child with its own prefix (pid, logs, temp
/// and cache directories) under `prefix`.
struct NginxFront: Sendable {
    /// The nginx executable, if installed (`make test-deps` installs Debian's).
    static let binary: URL? = ChildProcess.find(["nginx"])

    let port: Int
    let prefix: URL
    let process: ChildProcess

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// One access-log line.
    struct LogEntry: Sendable {
        var uri: String
        var status: Int
        /// The instances tried, in order ("127.0.0.1:8081"); more than one means nginx retried.
        var upstreams: [String]
        var upstreamStatuses: [String]
        var cacheStatus: String
    }

    /// Starts nginx in front of the instances on `upstreamPorts` and waits until it
    /// answers `/health` through them.
    static func start(upstreamPorts: [Int], prefix: URL, client: HTTPClient) async throws -> NginxFront {
        guard let binary else { throw DeployTestError("nginx is not installed") }
        let port = try ChildProcess.freePort()
        for sub in ["tmp", "cache"] {
            try FileManager.default.createDirectory(at: prefix.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let shipped = try String(
            contentsOf: ServeInstance.packageRoot.appendingPathComponent("deploy/nginx.conf"), encoding: .utf8)
        let site = try configuration(
            from: shipped, upstreamPorts: upstreamPorts, port: port, cachePath: prefix.appendingPathComponent("cache").path)
        let siteURL = prefix.appendingPathComponent("webimage.conf")
        try site.write(to: siteURL, atomically: true, encoding: .utf8)
        let main = prefix.appendingPathComponent("nginx.conf")
        try mainConfiguration(prefix: prefix.path, site: siteURL.path).write(to: main, atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            "nginx :\(port)", executable: binary,
            arguments: ["-p", prefix.path + "/", "-c", main.path, "-e", prefix.appendingPathComponent("error.log").path],
            log: prefix.appendingPathComponent("stderr.log"))
        let front = NginxFront(port: port, prefix: prefix, process: process)
        do {
            try await ServeInstance.waitUntilHealthy(front.baseURL + "/health", process: process, client: client)
        } catch {
            await process.stop()
            let errors = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            throw DeployTestError("\(error)\n\(errors.suffix(2000))")
        }
        return front
    }

    /// `shipped` with its "test:" lines replaced: every `server 127.0.0.1:N …;` of the upstream
    /// becomes one line per port of `upstreamPorts` (same parameters), the `listen` lines one
    /// `listen 127.0.0.1:port;`, and the `proxy_cache_path` directory `cachePath`. Throws when
    /// the file no longer has one of them, so the test cannot drift from it silently.
    static func configuration(from shipped: String, upstreamPorts: [Int], port: Int, cachePath: String) throws -> String {
        var out: [String] = []
        var servers = 0, listens = 0, caches = 0
        for line in shipped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let indent = String(line.prefix { $0 == " " })
            if trimmed.hasPrefix("server 127.0.0.1:"), trimmed.hasSuffix(";") {
                servers += 1
                guard servers == 1 else { continue }
                let words = trimmed.dropLast().split(separator: " ")
                let parameters = words.dropFirst(2).joined(separator: " ")
                for upstream in upstreamPorts {
                    out.append("\(indent)server 127.0.0.1:\(upstream)\(parameters.isEmpty ? "" : " " + parameters);")
                }
            } else if trimmed.hasPrefix("listen ") {
                listens += 1
                if listens == 1 { out.append("\(indent)listen 127.0.0.1:\(port);") }
            } else if trimmed.hasPrefix("proxy_cache_path ") {
                caches += 1
                var words = trimmed.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                words[1] = cachePath
                out.append(indent + words.joined(separator: " "))
            } else {
                out.append(line)
            }
        }
        guard servers >= 1, listens >= 1, caches == 1 else {
            throw DeployTestError("deploy/nginx.conf changed shape: \(servers) upstream servers, \(listens) listen, \(caches) proxy_cache_path")
        }
        return out.joined(separator: "\n")
    }

    /// The main file around the site: one worker (so round robin is one sequence), the
    /// prefix's own pid, logs and temp paths, and an access log naming the instances tried.
    static func mainConfiguration(prefix: String, site: String) -> String {
        // As root, workers would run as `nobody`, who cannot write the prefix; they only
        // ever listen on loopback.
        let user = getuid() == 0 ? "user root;" : ""
        return """
            worker_processes 1;
            daemon off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log notice;
            \(user)
            events { worker_connections 512; }
            http {
                log_format deploy '$request_uri $status "$upstream_addr" "$upstream_status" $upstream_cache_status';
                access_log \(prefix)/access.log deploy;
                client_body_temp_path \(prefix)/tmp/body;
                proxy_temp_path \(prefix)/tmp/proxy;
                fastcgi_temp_path \(prefix)/tmp/fastcgi;
                uwsgi_temp_path \(prefix)/tmp/uwsgi;
                scgi_temp_path \(prefix)/tmp/scgi;
                include \(site);
            }

            """
    }

    /// The access log so far (nginx writes a line as it finishes a request).
    func accessLog() -> [LogEntry] {
        let text = (try? String(contentsOf: prefix.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
            guard quoted.count == 5 else { return nil }
            let head = quoted[0].split(separator: " ")
            guard head.count == 2, let status = Int(head[1]) else { return nil }
            // "127.0.0.1:8081, 127.0.0.1:8082" and "502, 200"; "-" when nothing went upstream.
            func list(_ text: String) -> [String] {
                text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "-" }
            }
            return LogEntry(
                uri: String(head[0]), status: status, upstreams: list(quoted[1]), upstreamStatuses: list(quoted[3]),
                cacheStatus: quoted[4].trimmingCharacters(in: .whitespaces))
        }
    }
}
