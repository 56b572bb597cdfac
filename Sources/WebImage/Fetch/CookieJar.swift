import Foundation
import Synchronization

/// The downloader's in-memory cookies, used only with ``WebImageOptions/handleCookies``.
///
/// Deliberately small: name/value cookies scoped by host (or `Domain`), `Path` and
/// `Secure`; `Max-Age=0` deletes one. Nothing is written to disk.
///
/// Bounded as RFC 6265 §6.1 asks of a user agent at least: a cookie's name and value
/// together up to ``maxCookieBytes``, at most ``maxCookiesPerDomain`` per domain and
/// ``maxCookies`` in all; past a limit the cookie set longest ago goes first, so a
/// server that sets many cannot grow the jar. A `Domain` must contain the host (RFC
/// 6265 §5.3): a server cannot set cookies for another site, nor for an IP address other
/// than its own, nor for a top-level domain (`Domain=com`). Longer public suffixes
/// (`co.uk`) are not known, since the jar has no public-suffix list: a server under one
/// could share a cookie with its siblings there, which browsers refuse.
final class CookieJar: Sendable {
    /// The largest name plus value kept, in bytes (RFC 6265 §6.1: at least 4096).
    static let maxCookieBytes = 4096
    /// The most cookies kept for one domain (RFC 6265 §6.1: at least 50).
    static let maxCookiesPerDomain = 50
    /// The most cookies kept in all (RFC 6265 §6.1: at least 3000).
    static let maxCookies = 3000

    private struct Cookie: Sendable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
    }
    /// Oldest set first.
    private let cookies = Mutex<[Cookie]>([])

    /// How many cookies the jar holds (tests).
    var count: Int { cookies.withLock { $0.count } }

    /// Stores the `Set-Cookie` header values received from `url`.
    func store(setCookieHeaders: [String], from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        for header in setCookieHeaders {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { continue }
            var cookie = Cookie(
                name: String(pair[..<eq]), value: String(pair[pair.index(after: eq)...]),
                domain: host, hostOnly: true, path: "/", secure: false)
            var expired = false, ignored = false
            for attribute in parts.dropFirst() {
                let kv = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                let key = kv[0].lowercased(), value = kv.count > 1 ? kv[1] : ""
                switch key {
                case "domain":
                    let domain = value.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
                    if domain.isEmpty { continue }
                    // A server may only widen a cookie to a domain it belongs to (an IP address
                    // only to itself), and not to a top-level domain; otherwise it is ignored.
                    let contains = host == domain || (IPAddress(host) == nil && host.hasSuffix("." + domain))
                    guard contains, domain.contains(".") || domain == host else {
                        ignored = true
                        continue
                    }
                    cookie.domain = domain
                    cookie.hostOnly = false
                case "path": if value.hasPrefix("/") { cookie.path = value }
                case "secure": cookie.secure = true
                case "max-age": if let seconds = Int(value), seconds <= 0 { expired = true }
                default: break
                }
            }
            if ignored || cookie.name.utf8.count + cookie.value.utf8.count > Self.maxCookieBytes { continue }
            cookies.withLock { list in
                list.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                guard !expired else { return }
                list.append(cookie)
                if list.count(where: { $0.domain == cookie.domain }) > Self.maxCookiesPerDomain,
                   let oldest = list.firstIndex(where: { $0.domain == cookie.domain }) {
                    list.remove(at: oldest)
                }
                if list.count > Self.maxCookies { list.removeFirst(list.count - Self.maxCookies) }
            }
        }
    }

    /// The `Cookie` header to send to `url`, or `nil` when no cookie matches.
    func header(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let isSecure = url.scheme?.lowercased() == "https"
        let matching = cookies.withLock { list in
            list.filter { c in
                let domainOK = host == c.domain || (!c.hostOnly && IPAddress(host) == nil && host.hasSuffix("." + c.domain))
                return domainOK && path.hasPrefix(c.path) && (!c.secure || isSecure)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
