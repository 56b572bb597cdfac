import Foundation

/// How long a response may be used without asking the server again (RFC 9111), as
/// the manager keeps it next to a disk entry for ``HTTPCachePolicy/respectHeaders``.
package struct HTTPFreshness: Sendable, Hashable {
    /// When the response arrived (or was last revalidated).
    package var receivedAt: Date
    /// Seconds it stays fresh from ``receivedAt``: `max-age` (else `Expires` − `Date`)
    /// minus `Age`; 0 for `no-cache`. `nil` when the response named no lifetime.
    package var lifetime: TimeInterval?
    /// `no-cache` (or `Pragma: no-cache`): revalidate before every use.
    package var requiresRevalidation: Bool
    /// `must-revalidate`: once stale, never served without the server's word (no
    /// stale-while-revalidate, no stale-if-error).
    package var mustRevalidate: Bool
    /// `stale-while-revalidate` seconds: a stale entry may be served at once while it
    /// is revalidated in the background.
    package var staleWhileRevalidate: TimeInterval
    /// `stale-if-error` seconds: a stale entry may be served when revalidating fails.
    package var staleIfError: TimeInterval
    /// `no-store`: the response must not be written to disk at all.
    package var noStore: Bool

    /// What a cached entry may do at a moment.
    package enum State: Sendable, Hashable {
        /// Serve it; no request.
        case fresh
        /// Serve it now and revalidate in the background.
        case staleWhileRevalidate
        /// Revalidate first; on a server failure it may still be served when
        /// `staleIfErrorAllowed`.
        case stale(staleIfErrorAllowed: Bool)
    }

    /// Creates freshness information.
    package init(
        receivedAt: Date, lifetime: TimeInterval?, requiresRevalidation: Bool = false, mustRevalidate: Bool = false,
        staleWhileRevalidate: TimeInterval = 0, staleIfError: TimeInterval = 0, noStore: Bool = false
    ) {
        self.receivedAt = receivedAt
        self.lifetime = lifetime
        self.requiresRevalidation = requiresRevalidation
        self.mustRevalidate = mustRevalidate
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.noStore = noStore
    }

    /// The freshness `headers` give a response received at `receivedAt`; `nil` when they
    /// hold no caching header (`Cache-Control`, `Expires`, `Pragma`).
    ///
    /// - Parameter shared: for a cache that serves many users (the proxy's source cache),
    ///   which RFC 9111 §5.2.2.10 gives `s-maxage`: it then stands for `max-age` and
    ///   `Expires`, and forbids serving the copy stale (`proxy-revalidate`). A private cache
    ///   (the library's) ignores it.
    package init?(headers: HTTPHeaderFields, receivedAt: Date, shared: Bool = false) {
        let cacheControl = headers["Cache-Control"]
        let expiresHeader = headers["Expires"]
        let pragma = headers["Pragma"]?.lowercased().contains("no-cache") ?? false
        guard cacheControl != nil || expiresHeader != nil || pragma else { return nil }
        let directives = Self.directives(cacheControl ?? "")
        func seconds(_ name: String) -> TimeInterval? {
            guard let value = directives[name] ?? nil, let n = Int(value) else { return nil }
            return TimeInterval(max(n, 0))
        }
        var lifetime: TimeInterval?
        let sharedMaxAge = shared ? seconds("s-maxage") : nil
        if let sharedMaxAge {
            lifetime = sharedMaxAge
        } else if let maxAge = seconds("max-age") {
            lifetime = maxAge
        } else if let expiresHeader {
            // An invalid Expires ("0", "-1") means already expired (RFC 9111 §5.3).
            let expires = HTTPDate.parse(expiresHeader) ?? .distantPast
            let date = headers["Date"].flatMap(HTTPDate.parse) ?? receivedAt
            lifetime = max(expires.timeIntervalSince(date), 0)
        }
        if let age = headers["Age"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), let current = lifetime {
            lifetime = max(current - TimeInterval(max(age, 0)), 0)
        }
        let noCache = directives.keys.contains("no-cache") || (cacheControl == nil && pragma)
        self.init(
            receivedAt: receivedAt, lifetime: noCache ? 0 : lifetime, requiresRevalidation: noCache,
            mustRevalidate: directives.keys.contains("must-revalidate") || directives.keys.contains("proxy-revalidate")
                || sharedMaxAge != nil,
            staleWhileRevalidate: seconds("stale-while-revalidate") ?? 0, staleIfError: seconds("stale-if-error") ?? 0,
            noStore: directives.keys.contains("no-store"))
    }

    /// What an entry with this freshness may do at `now`. An entry without a lifetime is
    /// fresh (it is kept as long as the disk cache keeps it, SDWebImage's behaviour).
    package func state(at now: Date) -> State {
        guard let lifetime else { return requiresRevalidation ? .stale(staleIfErrorAllowed: false) : .fresh }
        let age = now.timeIntervalSince(receivedAt)
        if !requiresRevalidation, age < lifetime { return .fresh }
        let staleness = age - lifetime
        if mustRevalidate { return .stale(staleIfErrorAllowed: false) }
        if !requiresRevalidation, staleness < staleWhileRevalidate { return .staleWhileRevalidate }
        return .stale(staleIfErrorAllowed: staleness < staleIfError)
    }

    /// Whether a stale copy may stand in, within `stale-if-error`, for a revalidation the
    /// source answered with `status` (RFC 5861 §4: a failure that would make a 5xx): a 5xx
    /// may, a 4xx may not (the source said the image is gone or refused). A revalidation
    /// with no answer at all (a transfer error, a timeout) is not a status and may.
    package static func staleCopyMayAnswer(status: Int) -> Bool { status >= 500 }

    /// The directives of a `Cache-Control` value, names lowercased, values unquoted (the
    /// proxy reads a source's `no-store` with it too).
    package static func directives(_ value: String) -> [String: String?] {
        var result: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pair.first?.lowercased(), !name.isEmpty else { continue }
            let argument = pair.count > 1 ? pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            result[name] = argument
        }
        return result
    }
}

// MARK: - HTTPDate

/// HTTP dates (RFC 9110 §5.6.7): `Retry-After`, `Expires`, `Date`, `Last-Modified`.
enum HTTPDate {
    /// The three formats a recipient must accept: IMF-fixdate, RFC 850 and asctime.
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    /// The date `text` names, or `nil` when it is none of the formats.
    static func parse(_ text: String) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        for format in formats {
            // A formatter per call: DateFormatter is not Sendable, and dates are parsed
            // once per response, not per byte.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
