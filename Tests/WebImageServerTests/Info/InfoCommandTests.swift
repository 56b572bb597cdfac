import Foundation
import Testing
import WebImageServer
import WebImageTestOrigin

/// `webimage info FILE|URL --json`: the object `/info` answers for the same options
/// (compared with a server's answer for the same file), a JSON error and exit 1 for a file
/// that is not an image, exit 2 for bad usage.
@Suite("webimage info", .serialized)
struct InfoCommandTests {
    struct Run {
        var status: Int32
        var out: Data
    }

    /// Runs the built `webimage` (beside the test binary) to the end; stdout to a file.
    static func run(_ arguments: [String]) async throws -> Run {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-info-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("out")
        let child = try ChildProcess("webimage info", executable: ServeInstance.executable, arguments: arguments, log: out)
        guard await child.waitForExit(timeout: .seconds(60)) else {
            await child.stop()
            throw DeployTestError("webimage info did not finish")
        }
        return Run(status: child.process.terminationStatus, out: try Data(contentsOf: out))
    }

    static func object(_ data: Data) throws -> [String: Any] {
        let line = try #require(String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("{") })
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("--json is /info's object for the same options")
    func sameAsInfo() async throws {
        let root = try LocalRoot()
        defer { root.remove() }
        try root.add(Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation/Landscape_6.jpg"), as: "l6.jpg")
        let file = root.root.appendingPathComponent("l6.jpg").path
        var config = ProxyConfig.testing
        config.localRoot = root.root
        try await ProxyHarness.with(config) { proxy in
            for (flags, options) in [([String](), ""), (["--blurhash", "4:3", "--thumbhash", "--average"], "bh:4:3/th:1/avg:1"),
                                     (["--palette", "5", "--dominant-colors"], "p:5/dc:1")] {
                let run = try await Self.run(["info", file, "--json"] + flags)
                #expect(run.status == 0)
                let cli = try Self.object(run.out)
                let served = try #require(try JSONSerialization.jsonObject(
                    with: try await proxy.get("/info/unsafe/" + (options.isEmpty ? "" : options + "/") + "plain/local:///l6.jpg").body)
                    as? [String: Any])
                #expect(NSDictionary(dictionary: cli).isEqual(to: served), "\(flags)")
                #expect(cli["width"] as? Int == 1800 && cli["orientation"] as? Int == 6)
            }
        }
    }

    @Test("A URL is fetched and described")
    func url() async throws {
        try await TestOrigin.with(host: "127.0.0.1") { origin in
            let png = try LocalRoot.png(LocalRoot.gradient)
            origin.route("/a.png", .init(body: Array(png), contentType: "image/png"))
            let run = try await Self.run(["info", origin.url("/a.png").absoluteString, "--json", "--average"])
            #expect(run.status == 0, "\(String(decoding: run.out, as: UTF8.self))")
            let object = try Self.object(run.out)
            #expect(object["size"] as? Int == png.count)
            #expect(object["average"] as? [String: Int] == ["R": 124, "G": 124, "B": 128, "A": 255])
        }
    }

    @Test("Not an image: exit 1 and a JSON error; bad usage: exit 2")
    func failures() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-info-bad-\(UUID().uuidString).png")
        try Data("not an image".utf8).write(to: work)
        defer { try? FileManager.default.removeItem(at: work) }
        let bad = try await Self.run(["info", work.path, "--json"])
        #expect(bad.status == 1)
        let object = try Self.object(bad.out)
        #expect(object["ok"] as? Bool == false)
        #expect(object["error"] is [String: Any])
        #expect(try await Self.run(["info", work.path, "--blurhash", "10:3"]).status == 2)
        #expect(try await Self.run(["info", work.path, "--palette", "1"]).status == 2)
    }
}
