import Foundation
import Synchronization

/// The downloader's in-memory cookies, used only with ``WebImageOptions/handleCookies``.
///
/// Deliberately small: name/value cookies scoped by host (or `Domain`), `Path` and
/// `Secure`; `Max-Age=0` deletes one. Nothing is written to disk.
final class CookieJar: Sendable {
    private struct Cookie: Sendable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
    }
    private let cookies = Mutex<[Cookie]>([])

    /// Stores the `Set-Cookie` header values received from `url`.
    func store(setCookieHeaders: [String], from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        for header in setCookieHeaders {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { continue }
            var cookie = Cookie(
                name: String(pair[..<eq]), value: String(pair[pair.index(after: eq)...]),
                domain: host, hostOnly: true, path: "/", secure: false)
            var expired = false
            for attribute in parts.dropFirst() {
                let kv = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                let key = kv[0].lowercased(), value = kv.count > 1 ? kv[1] : ""
                switch key {
                case "domain":
                    let domain = value.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
                    // A server may only widen a cookie to a domain it belongs to.
                    guard host == domain || host.hasSuffix("." + domain) else { expired = true; continue }
                    cookie.domain = domain
                    cookie.hostOnly = false
                case "path": if value.hasPrefix("/") { cookie.path = value }
                case "secure": cookie.secure = true
                case "max-age": if let seconds = Int(value), seconds <= 0 { expired = true }
                default: break
                }
            }
            cookies.withLock { list in
                list.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if !expired { list.append(cookie) }
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
                let domainOK = c.hostOnly ? host == c.domain : (host == c.domain || host.hasSuffix("." + c.domain))
                return domainOK && path.hasPrefix(c.path) && (!c.secure || isSecure)
            }
        }
        guard !matching.isEmpty else { return nil }
        return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
