import AsyncHTTPClient
import Foundation
import Testing
import WebImageCodecs

/// README.md's "Try it by hand" block, run as written: `serve`, the curl line and the bulk
/// job, with the port the test was given in place of 8080 and the built tool in place of
/// `.build/release/webimage`.
@Suite("README: try it by hand", .serialized, .timeLimit(.minutes(2)))
struct ReadmeTryItTests {
    /// The shell lines of the block after `### Try it by hand`.
    static func lines() throws -> [String] {
        let readme = try String(contentsOf: ServeInstance.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### Try it by hand"), "README.md has no 'Try it by hand'")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// Runs `command` with `/bin/sh` in `directory`; its status and output.
    static func shell(_ command: String, in directory: URL) async throws -> (status: Int32, output: String) {
        let log = directory.appendingPathComponent("shell-\(UUID().uuidString).log")
        let child = try ChildProcess("sh", executable: URL(fileURLWithPath: "/bin/sh"),
                                     arguments: ["-c", "cd '\(directory.path)' && \(command)"], log: log)
        #expect(await child.waitForExit(timeout: .seconds(60)), "\(command) did not end")
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return (child.process.isRunning ? -1 : child.process.terminationStatus, output)
    }

    @Test("serve, curl and the bulk job of the README work as written")
    func tryIt() async throws {
        let lines = try Self.lines()
        #expect(lines.count == 4, "\(lines)")
        let tool = ".build/release/webimage"
        #expect(lines.first?.hasPrefix("\(tool) serve --unsigned &") == true, "\(lines)")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tryit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let serve = try await ServeInstance.start([], log: work.appendingPathComponent("serve.log"), client: HTTPClient.shared)
        do {
            for line in lines.dropFirst() {
                let command = line.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(serve.port)")
                    .replacingOccurrences(of: tool, with: ServeInstance.executable.path)
                let (status, output) = try await Self.shell(command, in: work)
                #expect(status == 0, "\(line)\n\(output)")
            }
        } catch {
            await serve.process.stop()
            throw error
        }
        await serve.process.stop()

        // What the README says they make: a 300×200 JPEG, and one shard with both samples at 256×256.
        let sunset = try Fixtures.decode(try Data(contentsOf: work.appendingPathComponent("sunset.jpg")))
        #expect(sunset.format == .jpeg && sunset.width == 300 && sunset.height == 200)
        let unpacked = work.appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        let (status, output) = try await Self.shell("tar -xf shards/00000.tar -C unpacked", in: work)
        #expect(status == 0, "\(output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: unpacked.path).sorted()
        #expect(names == ["000000000.jpg", "000000000.json", "000000000.txt", "000000001.jpg", "000000001.json", "000000001.txt"],
                "\(names)")
        for name in names where name.hasSuffix(".jpg") {
            let image = try Fixtures.decode(try Data(contentsOf: unpacked.appendingPathComponent(name)))
            #expect(image.width == 256 && image.height == 256, "\(name)")
        }
        let caption = try String(contentsOf: unpacked.appendingPathComponent("000000000.txt"), encoding: .utf8)
        #expect(caption == "a sunset")
    }
}
