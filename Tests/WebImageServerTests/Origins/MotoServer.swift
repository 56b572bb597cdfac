import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// moto's standalone S3-compatible server (PyPI `moto[server]`, installed by
/// `make test-venv`) on a free loopback port, with authentication on after the three
/// set-up calls, and `Tests/Fixtures/s3/moto_setup.py` run against it: an IAM user's key,
/// buckets `allowed` (versioned) and `denied`, and the objects given.
struct MotoServer {
    static let venv = Fixtures.packageRoot.appendingPathComponent(".build-test/venv/bin")
    static let setupScript = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/s3/moto_setup.py")
    /// Whether `make test-venv` installed moto.
    static let isInstalled = FileManager.default.isExecutableFile(atPath: venv.appendingPathComponent("moto_server").path)

    let process: ChildProcess
    let port: Int
    let work: URL
    let accessKeyID: String
    let secretAccessKey: String
    /// Per object name: the version ids in `allowed`, oldest first.
    let versions: [String: [String]]

    var endpoint: String { "http://127.0.0.1:\(port)" }

    struct Setup: Decodable {
        let access_key_id: String
        let secret_access_key: String
        let versions: [String: [String?]]
    }

    /// Starts moto and uploads `objects` (name → bytes) to both buckets; the first object
    /// gets a second version in `allowed` with the last object's bytes.
    static func start(objects: [(String, Data)]) async throws -> MotoServer {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-moto-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let port = try ChildProcess.freePort()
        let process = try ChildProcess(
            "moto_server", executable: venv.appendingPathComponent("moto_server"), arguments: ["-H", "127.0.0.1", "-p", "\(port)"],
            environment: ["INITIAL_NO_AUTH_ACTION_COUNT": "3"], log: work.appendingPathComponent("moto.log"))
        do {
            try await waitForPort(port, process: process)
            var pairs: [String] = []
            for (name, data) in objects {
                let file = work.appendingPathComponent(name)
                try data.write(to: file)
                pairs.append("\(name)=\(file.path)")
            }
            let out = work.appendingPathComponent("setup.json")
            try await run(["setup", "http://127.0.0.1:\(port)", out.path] + pairs, work: work)
            let setup = try JSONDecoder().decode(Setup.self, from: Data(contentsOf: out))
            return MotoServer(process: process, port: port, work: work, accessKeyID: setup.access_key_id,
                              secretAccessKey: setup.secret_access_key, versions: setup.versions.mapValues { $0.compactMap { $0 } })
        } catch {
            await process.stop()
            throw error
        }
    }

    /// Uploads `data` as a new version of `name` in `bucket`.
    func put(_ name: String, _ data: Data, bucket: String = "allowed") async throws {
        let file = work.appendingPathComponent("put-\(UUID().uuidString)")
        try data.write(to: file)
        try await Self.run(["put", endpoint, accessKeyID, secretAccessKey, bucket, name, file.path], work: work)
    }

    static func run(_ arguments: [String], work: URL) async throws {
        let run = try ChildProcess(
            "moto_setup.py", executable: venv.appendingPathComponent("python"), arguments: [setupScript.path] + arguments,
            log: work.appendingPathComponent("setup-\(UUID().uuidString).log"))
        guard await run.waitForExit(timeout: .seconds(60)), run.process.terminationStatus == 0 else {
            await run.stop()
            throw DeployTestError("moto_setup.py \(arguments.first ?? "") failed:\n\(run.logTail)")
        }
    }

    /// Waits until moto accepts connections on `port`.
    static func waitForPort(_ port: Int, process: ChildProcess) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw DeployTestError("moto_server exited:\n\(process.logTail)") }
            if canConnect(port) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DeployTestError("moto_server did not listen within 60 s:\n\(process.logTail)")
    }

    private static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: work)
    }
}
