import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import WebImageCodecs
@testable import WebImageServer

/// The first section of ImageProxy.md ("Try it with curl") against the built `webimage serve`:
/// its curl line answers what the text says, the `example://` pictures it lists are the
/// server's, and the listen addresses it states (flags: 127.0.0.1; `PORT`, `IMGPROXY_BIND`:
/// every interface) are the ones the server binds.
@Suite("ImageProxy.md: the curl a reader runs first", .serialized, .timeLimit(.minutes(3)))
struct ImageProxyQuickStartTests {
    static let enabled = FileManager.default.isExecutableFile(atPath: ServeInstance.executable.path)
    static let article = (try? String(
        contentsOf: ServeInstance.packageRoot.appendingPathComponent("Sources/WebImage/WebImage.docc/ImageProxy.md"),
        encoding: .utf8)) ?? ""

    /// The text of the "Try it with curl" section (up to the next heading).
    static var section: String {
        guard let start = article.range(of: "### Try it with curl") else { return "" }
        let rest = article[start.upperBound...]
        let end = rest.range(of: "\n#")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    /// The lines of the section's first ```sh block.
    static var commands: [String] {
        guard let open = section.range(of: "```sh\n"), let close = section[open.upperBound...].range(of: "```") else { return [] }
        return section[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    @Test("the section starts the server with `webimage serve --unsigned` and curls one example:// URL on 127.0.0.1:8080")
    func documented() throws {
        let commands = Self.commands
        #expect(commands.count == 2, "\(commands)")
        #expect(commands.first == "webimage serve --unsigned")
        let curl = try #require(commands.last)
        #expect(curl.hasPrefix("curl -o out.jpg http://127.0.0.1:8080/unsafe/"), "\(curl)")
        #expect(curl.contains("/plain/example://"), "\(curl)")
    }

    @Test("the documented curl URL answers a JPEG of the size the text gives", .enabled(if: enabled, "the webimage product is not built"))
    func curlLine() async throws {
        let curl = try #require(Self.commands.last)
        let url = try #require(curl.split(separator: " ").last.map(String.init))
        let stated = try #require(Self.section.firstMatch(of: #/`out\.jpg` is a (\d+)×(\d+) JPEG/#), "the text gives the result's size")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-quickstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // The documented command on a free port instead of 8080 (which may be taken here).
        let server = try await ServeInstance.start(["--no-cache"], log: work.appendingPathComponent("serve.log"), client: .shared)
        do {
            let request = HTTPClientRequest(url: url.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            let body = Data(buffer: try await response.body.collect(upTo: 16 << 20))
            #expect(response.status == .ok, "\(String(decoding: body.prefix(300), as: UTF8.self))")
            #expect(response.headers.first(name: "Content-Type") == "image/jpeg")
            let image = try ImageCodersManager.shared.decode(body, options: ImageDecodeOptions())
            #expect(image.format == .jpeg)
            #expect("\(image.width)" == stated.output.1 && "\(image.height)" == stated.output.2,
                    "\(image.width)×\(image.height), the text says \(stated.output.1)×\(stated.output.2)")
        } catch {
            await server.process.stop()
            throw error
        }
        await server.process.stop()
    }

    @Test("the example:// pictures the section lists are the server's, at the sizes it gives")
    func examples() throws {
        let listed = Self.section.matches(of: #/`example:\/\/([a-z]+\.[a-z]+)` \((\d+)×(\d+)/#)
        #expect(Set(listed.map { String($0.output.1) }) == Set(ExampleImages.names), "\(listed.map(\.output.1))")
        for entry in listed {
            let name = String(entry.output.1)
            let image = try #require(ExampleImages.shared.images[name], "\(name)")
            let decoded = try ImageCodersManager.shared.decode(image.data, options: ImageDecodeOptions())
            #expect("\(decoded.width)" == entry.output.2 && "\(decoded.height)" == entry.output.3,
                    "\(name) is \(decoded.width)×\(decoded.height)")
        }
    }

    @Test("PORT and IMGPROXY_BIND=:N mean every interface (0.0.0.0); IMGPROXY_BIND with a host keeps it")
    func environmentBind() throws {
        #expect(try ProxyConfig().applyingEnvironment(["PORT": "7070"]).1 == .init(host: "0.0.0.0", port: 7070))
        #expect(try ProxyConfig().applyingEnvironment(["IMGPROXY_BIND": ":7071"]).1 == .init(host: "0.0.0.0", port: 7071))
        #expect(try ProxyConfig().applyingEnvironment(["IMGPROXY_BIND": "127.0.0.1:7072"]).1 == .init(host: "127.0.0.1", port: 7072))
        #expect(try ProxyConfig().applyingEnvironment([:]).1 == .init(host: nil, port: nil), "no variable: the flags' defaults")
        let section = Self.section.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for claim in ["`--host` defaults to 127.0.0.1", "`PORT=8080` and `IMGPROXY_BIND=:8080` listen on every interface (0.0.0.0)",
                      "`--port 9000` changes the port and the server still listens on 0.0.0.0"] {
            #expect(section.contains(claim), "ImageProxy.md no longer says: \(claim)")
        }
    }

    /// The IPv4 addresses `webimage serve` (process `pid`) listens on at `port`, from
    /// /proc/net/tcp (LISTEN is state 0A; addresses are little-endian hex).
    static func listeners(port: Int) throws -> [String] {
        let table = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
        let wanted = String(format: "%04X", port)
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 3, fields[3] == "0A" else { return nil }
            let local = fields[1].split(separator: ":")
            guard local.count == 2, local[1] == wanted, let raw = UInt32(local[0], radix: 16) else { return nil }
            return [raw & 0xFF, raw >> 8 & 0xFF, raw >> 16 & 0xFF, raw >> 24].map { String($0) }.joined(separator: ".")
        }
    }

    @Test(
        "as served: --port listens on 127.0.0.1, PORT on 0.0.0.0, and --port with PORT set on 0.0.0.0 at the flag's port",
        .enabled(if: enabled && FileManager.default.fileExists(atPath: "/proc/net/tcp"), "needs the built webimage and Linux's /proc/net/tcp"))
    func servedBind() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let flagPort = try ChildProcess.freePort(), envPort = try ChildProcess.freePort()
        let cases: [(String, [String], [String: String], port: Int, expected: String)] = [
            ("--port", ["--port", "\(flagPort)"], [:], flagPort, "127.0.0.1"),
            ("PORT", [], ["PORT": "\(envPort)"], envPort, "0.0.0.0"),
            ("PORT and --port", ["--port", "\(flagPort)"], ["PORT": "\(envPort)"], flagPort, "0.0.0.0"),
        ]
        for (index, (name, flags, environment, port, expected)) in cases.enumerated() {
            let log = work.appendingPathComponent("serve-\(index).log")
            let process = try ChildProcess("webimage serve (\(name))", executable: ServeInstance.executable,
                                           arguments: ["serve", "--unsigned", "--no-cache"] + flags, environment: environment, log: log)
            do {
                try await ServeInstance.waitUntilHealthy("http://127.0.0.1:\(port)/health", process: process, client: .shared)
                #expect(try Self.listeners(port: port) == [expected], "\(name)")
                let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                #expect(said.contains("listening on http://\(expected):\(port)"), "\(name): \(said)")
            } catch {
                await process.stop()
                throw error
            }
            await process.stop()
        }
    }
}
