import Foundation
import Testing
import WebImageTestOrigin

/// moto's S3-compatible server (PyPI `moto[server]` in the test venv) on a free loopback
/// port with authentication on, as the proxy's `s3://` source tests run it: started with
/// `INITIAL_NO_AUTH_ACTION_COUNT=3`, its first three calls make an IAM user `webimage`
/// with a policy allowing everything and its access key; every later call must be signed
/// with that key (`SignatureDoesNotMatch` otherwise). Then, signed, the bucket `datasets`.
/// The tests read the bucket back through boto3, not through our client.
final class MotoS3: @unchecked Sendable {  // immutable after start; Process.terminate and waitUntilExit may be called from any thread
    static let venv = Corpus.packageRoot.appendingPathComponent(".build-test/venv/bin")
    /// Why moto cannot run here, or `nil`.
    static let unavailableReason: String? = FileManager.default.isExecutableFile(atPath: venv.appendingPathComponent("moto_server").path)
        ? nil : "moto is not installed in .build-test/venv (make test-venv)"
    static let bucket = "datasets"

    let process: Process
    let port: Int
    let work: URL
    let accessKeyID: String
    let secretAccessKey: String

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment a signed `webimage` run needs (and a spool under `spool`).
    func environment(spool: URL, secret: String? = nil) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secret ?? secretAccessKey, "AWS_ENDPOINT_URL": endpoint,
         "AWS_REGION": "us-east-1", "AWS_SESSION_TOKEN": "", "AWS_ENDPOINT_URL_S3": "", "TMPDIR": spool.path]
    }

    private init(process: Process, port: Int, work: URL, accessKeyID: String, secretAccessKey: String) {
        self.process = process
        self.port = port
        self.work = work
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// Runs `body` with a started server (with `environment` added to moto's), and stops it
    /// afterwards whatever `body` did.
    static func with(environment: [String: String] = [:], _ body: (MotoS3, TemporaryDirectory) async throws -> Void) async throws {
        let work = try TemporaryDirectory()
        let moto = try await start(in: work.url, environment: environment)
        try await withCleanup { try await body(moto, work) } cleanup: { await moto.stop() }
    }

    static func start(in work: URL, environment: [String: String] = [:]) async throws -> MotoS3 {
        let port = try #require(try SlurmCluster.freePorts(1).first)
        let log = work.appendingPathComponent("moto.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = venv.appendingPathComponent("moto_server")
        process.arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(["INITIAL_NO_AUTH_ACTION_COUNT": "3"]) { $1 }) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        do {
            // A TCP connect only: an HTTP probe would use up one of the three open calls.
            let deadline = ContinuousClock.now + .seconds(60)
            while !canConnect(port) {
                guard process.isRunning, ContinuousClock.now < deadline else {
                    throw MotoError("moto_server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let setup = try await python(#"""
                import json, sys, boto3
                def client(service, key="testing", secret="testing"):
                    return boto3.client(service, endpoint_url=sys.argv[1], region_name="us-east-1",
                                        aws_access_key_id=key, aws_secret_access_key=secret)
                iam = client("iam")
                iam.create_user(UserName="webimage")
                iam.put_user_policy(UserName="webimage", PolicyName="all", PolicyDocument=json.dumps({
                    "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
                key = iam.create_access_key(UserName="webimage")["AccessKey"]
                client("s3", key["AccessKeyId"], key["SecretAccessKey"]).create_bucket(Bucket=sys.argv[2])
                print(json.dumps([key["AccessKeyId"], key["SecretAccessKey"]]))
                """#, ["http://127.0.0.1:\(port)", bucket], work: work)
            let pair = try #require(try JSONSerialization.jsonObject(with: Data(setup.utf8)) as? [String])
            return MotoS3(process: process, port: port, work: work, accessKeyID: pair[0], secretAccessKey: pair[1])
        } catch {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw error
        }
    }

    /// Runs `script` with boto3 signed by the `webimage` key: `sys.argv[1:4]` are the
    /// endpoint, key id and secret, then `arguments`. Its stdout.
    func boto(_ script: String, _ arguments: [String] = []) async throws -> String {
        let prelude = """
            import sys, json, hashlib, boto3
            s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1",
                              aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])

            """
        return try await Self.python(prelude + script, [endpoint, accessKeyID, secretAccessKey] + arguments, work: work)
    }

    /// Every object under `prefix` (a trailing `/` added): name below the prefix → ETag.
    func etags(under prefix: String) async throws -> [String: String] {
        let text = try await boto(#"""
            out = {}
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[4], Prefix=sys.argv[5]):
                for o in page.get("Contents", []):
                    out[o["Key"][len(sys.argv[5]):]] = o["ETag"]
            print(json.dumps(out))
            """#, [Self.bucket, prefix + "/"])
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
    }

    /// Downloads every object under `prefix` into `folder`, at its name below the prefix.
    func download(under prefix: String, to folder: URL) async throws {
        _ = try await boto(#"""
            import os
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[4], Prefix=sys.argv[5]):
                for o in page.get("Contents", []):
                    path = os.path.join(sys.argv[6], o["Key"][len(sys.argv[5]):])
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    s3.download_file(sys.argv[4], o["Key"], path)
            """#, [Self.bucket, prefix + "/", folder.path])
    }

    /// Multipart uploads started and neither completed nor aborted.
    func pendingUploads() async throws -> Int {
        let text = try await boto(#"print(len(s3.list_multipart_uploads(Bucket=sys.argv[4]).get("Uploads", [])))"#, [Self.bucket])
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Ends moto (SIGKILL: its server does not exit on SIGTERM) and waits for it.
    func stop() async {
        kill(process.processIdentifier, SIGKILL)
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                c.resume()
            }
        }
    }

    /// Runs the venv's Python on `script`; its stdout, or an error with its stderr.
    static func python(_ script: String, _ arguments: [String], work: URL) async throws -> String {
        let id = UUID().uuidString
        let scriptURL = work.appendingPathComponent("script-\(id).py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let out = work.appendingPathComponent("out-\(id)")
        let err = work.appendingPathComponent("err-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = venv.appendingPathComponent("python")
        process.arguments = [scriptURL.path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                c.resume()
            }
        }
        guard process.terminationStatus == 0 else {
            throw MotoError("python failed: \((try? String(contentsOf: err, encoding: .utf8)) ?? "")")
        }
        return try String(contentsOf: out, encoding: .utf8)
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
}

struct MotoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
