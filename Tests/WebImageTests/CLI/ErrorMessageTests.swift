import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The words of the errors a newcomer meets first: a missing file, a refused connection.
@Suite("webimage: error messages for bad input", .timeLimit(.minutes(1)))
struct ErrorMessageTests {
    @Test("a missing file says so, in the same words for decode, info and show; no Foundation boilerplate")
    func missingFile() async throws {
        let work = try TemporaryDirectory()
        let path = work.url.appendingPathComponent("nothing-here.jpg").path
        for arguments in [["decode", path, "--json"], ["info", path], ["show", path]] {
            let run = try await WebImageTool.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            let text = run.out + run.err
            #expect(text.contains("No file at \(path)"), "\(arguments): \(text)")
            #expect(!text.contains("operation could not be completed") && !text.contains("couldn’t"), "\(arguments): \(text)")
        }
    }

    @Test("a refused connection reads 'Connection refused', with host and port and balanced parentheses")
    func refusedConnection() async throws {
        // A socket bound to a port but not listening: connections to it are refused, and
        // no other program can take the port while the test holds it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let url = "http://127.0.0.1:\(port)/x.jpg"
        let run = try await WebImageTool.run(["fetch", url, "--json", "--memory-only"])
        #expect(run.status == 1)
        let line = try #require(try run.jsonLines().first)
        let error = try #require(line["error"] as? [String: Any])
        let message = try #require(error["message"] as? String)
        #expect(error["name"] as? String == "cannotConnect")
        #expect(message == "Could not connect to 127.0.0.1:\(port): Connection refused", "\(message)")
        #expect(message.filter { $0 == "(" }.count == message.filter { $0 == ")" }.count)
    }
}
