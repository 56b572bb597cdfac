import Foundation
import Testing
@testable import WebImage

/// The downloader's cookie jar (``WebImageOptions/handleCookies``) against RFC 6265: which
/// `Domain` a server may set (§5.1.3 domain matching, §5.3 step 6: otherwise the cookie is
/// ignored), and the limits a user agent keeps (§6.1). The expected values follow the RFC's
/// text, not the jar's code.
@Suite("CookieJar: RFC 6265's domain rules and limits")
struct CookieJarTests {
    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test("a Domain the host belongs to reaches its subdomains; without one the cookie stays with its host")
    func domainWidening() throws {
        let jar = CookieJar()
        jar.store(setCookieHeaders: ["a=1; Domain=example.com", "h=2"], from: try Self.url("https://img.example.com/x"))
        #expect(jar.header(for: try Self.url("https://cdn.example.com/y")) == "a=1")
        #expect(jar.header(for: try Self.url("https://example.com/y")) == "a=1")
        #expect(jar.header(for: try Self.url("https://img.example.com/y")) == "a=1; h=2")
        #expect(jar.header(for: try Self.url("https://badexample.com/y")) == nil, "a suffix that is not a label boundary")
        #expect(jar.header(for: try Self.url("https://sub.img.example.com/y")) == "a=1", "h is host-only")
        // Domain equal to the host is a domain cookie (§5.3 step 6), so subdomains get it too.
        jar.store(setCookieHeaders: ["d=3; Domain=.img.example.com"], from: try Self.url("https://img.example.com/"))
        #expect(jar.header(for: try Self.url("https://sub.img.example.com/")) == "a=1; d=3")
    }

    @Test("a Domain of another site, a top-level domain or another IP address: the cookie is ignored and replaces nothing")
    func refusedDomains() throws {
        let jar = CookieJar()
        let host = try Self.url("https://img.example.com/")
        jar.store(setCookieHeaders: ["s=1"], from: host)
        jar.store(setCookieHeaders: ["s=2; Domain=other.com", "s=3; Domain=com", "t=1; Domain=com"], from: host)
        #expect(jar.header(for: host) == "s=1", "the refused cookies neither replaced nor deleted s=1")
        #expect(jar.header(for: try Self.url("https://other.com/")) == nil)
        #expect(jar.header(for: try Self.url("https://shop.com/")) == nil)

        let loopback = try Self.url("http://127.0.0.1/")
        jar.store(setCookieHeaders: ["u=1; Domain=0.1", "v=1; Domain=127.0.0.1", "w=1"], from: loopback)
        #expect(jar.header(for: try Self.url("http://10.0.0.1/")) == nil, "an IP address cannot widen a cookie")
        #expect(jar.header(for: loopback) == "v=1; w=1")
        #expect(jar.count == 3)
    }

    @Test("limits: a name and value over 4096 bytes are refused; 50 per domain and 3000 in all, the oldest out first")
    func limits() throws {
        let jar = CookieJar()
        let host = try Self.url("https://a.test/")
        // §6.1: at least 4096 bytes per cookie; here the name and value together.
        jar.store(setCookieHeaders: ["big=" + String(repeating: "x", count: 4094)], from: host)
        #expect(jar.count == 0)
        jar.store(setCookieHeaders: ["big=" + String(repeating: "x", count: 4093)], from: host)
        #expect(jar.count == 1)

        // §6.1: at least 50 per domain. Sixty set one after another: the first ten go.
        jar.store(setCookieHeaders: (0..<60).map { "c\($0)=\($0)" }, from: try Self.url("https://b.test/"))
        let sent = try #require(jar.header(for: try Self.url("https://b.test/")))
        #expect(sent.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } == (10..<60).map { "c\($0)=\($0)" })
        #expect(jar.count == 51)

        // §6.1: at least 3000 in all. 62 more domains with 50 each pass it: the oldest go first.
        for domain in 0..<62 {
            jar.store(setCookieHeaders: (0..<50).map { "n\($0)=1" }, from: try Self.url("https://d\(domain).test/"))
        }
        #expect(jar.count == 3000)
        let b = try Self.url("https://b.test/")
        #expect(jar.header(for: host) == nil && jar.header(for: b) == nil)
        #expect(jar.header(for: try Self.url("https://d0.test/")) == nil, "the oldest 151 went: big, b.test's 50, d0's and d1's")
        #expect(jar.header(for: try Self.url("https://d1.test/")) == nil)
        #expect(jar.header(for: try Self.url("https://d2.test/"))?.split(separator: ";").count == 50)
    }
}
