import Foundation

/// Which source URLs a downloader may request, by name: host patterns, and imgproxy's
/// `IMGPROXY_ALLOWED_SOURCES` URL prefixes. Part of a ``HopPolicy``, so it is checked on
/// the first request and on **every redirect hop**, before any connection to that hop.
///
/// A URL passes when it matches any host pattern or any prefix; an allowlist with
/// neither passes everything.
///
/// - Host patterns: `example.com` (that name only), `.example.com` (the name and every
///   name under it) or an address literal (`127.0.0.1`, `::1`), compared
///   case-insensitively with the URL's host.
/// - Prefixes, as imgproxy documents them: the URL must start with the prefix, where `*`
///   matches any run of characters other than `/` (`https://*.example.com/`). Write the
///   slash after a host, as imgproxy's documentation warns: `http://example.com` also
///   matches `http://example.com.evil.net/`.
///
/// Pure computation on the calling task.
public struct SourceAllowlist: Sendable, Hashable {
    /// Host patterns, lowercased.
    public var hosts: [String] { didSet { hosts = hosts.map { $0.lowercased() } } }
    /// URL prefixes with `*` wildcards.
    public var urlPrefixes: [String]

    public init(hosts: [String] = [], urlPrefixes: [String] = []) {
        self.hosts = hosts.map { $0.lowercased() }
        self.urlPrefixes = urlPrefixes
    }

    /// Whether the allowlist restricts anything.
    public var isEmpty: Bool { hosts.isEmpty && urlPrefixes.isEmpty }

    /// Whether `url` may be requested.
    public func allows(_ url: URL) -> Bool {
        if isEmpty { return true }
        if let host = url.host, allows(host: host) { return true }
        let text = url.absoluteString
        return urlPrefixes.contains { Self.matches(prefix: Array($0.utf8), text: Array(text.utf8)) }
    }

    /// Whether `host` matches a host pattern.
    public func allows(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return hosts.contains { pattern in
            if pattern == name { return true }
            guard pattern.hasPrefix(".") else { return false }
            return name.hasSuffix(pattern) || "." + name == pattern
        }
    }

    /// Whether `text` starts with `prefix`, `*` in the prefix matching any run of
    /// non-`/` bytes. Linear in practice: each `*` tries the shortest run first and a run
    /// never crosses a `/`.
    static func matches(prefix: [UInt8], text: [UInt8]) -> Bool {
        let star = UInt8(ascii: "*"), slash = UInt8(ascii: "/")
        func match(_ p: Int, _ t: Int) -> Bool {
            var p = p, t = t
            while p < prefix.count {
                if prefix[p] == star {
                    // Try every run length up to the next '/'.
                    var end = t
                    while true {
                        if match(p + 1, end) { return true }
                        guard end < text.count, text[end] != slash else { return false }
                        end += 1
                    }
                }
                guard t < text.count, text[t] == prefix[p] else { return false }
                p += 1
                t += 1
            }
            return true
        }
        return match(0, 0)
    }
}
