import Foundation

extension ImageDownloader {
    /// The statuses the downloader follows when they carry a `Location`.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request for the next hop of a redirect from `request` to `location`, or a
    /// ``WebImageCodecs/WebImageError/Code/tooManyRedirects`` error when it must not be followed: past
    /// ``DownloaderConfig/maxRedirects``, back to a URL already requested, to a scheme
    /// other than http(s), or between http and https unless
    /// ``DownloaderConfig/allowsCrossSchemeRedirects``.
    func redirect(
        from request: ImageDownloadRequest, to location: String, status: Int, trail: inout RedirectTrail,
        handleCookies: Bool
    ) throws(WebImageError) -> ImageDownloadRequest {
        func refuse(_ why: String) -> WebImageError {
            WebImageError(
                .tooManyRedirects, "Redirect from \(request.url.redactedForLog) \(why)", httpStatusCode: status)
        }
        guard trail.hops < config.maxRedirects else {
            throw refuse("not followed: more than \(config.maxRedirects) redirects")
        }
        // Relative Locations resolve against the URL that answered (RFC 9110 §10.2.2).
        guard let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw refuse("to an invalid Location not followed")
        }
        let fromScheme = request.url.scheme?.lowercased()
        let toScheme = next.scheme?.lowercased()
        guard toScheme == "http" || toScheme == "https", canRequestImage(for: next) else {
            throw refuse("to \(toScheme ?? "a relative") URL not followed: only http(s) redirects are")
        }
        guard toScheme == fromScheme || config.allowsCrossSchemeRedirects else {
            throw refuse("to \(next.redactedForLog) not followed: it changes the scheme (allowsCrossSchemeRedirects is off)")
        }
        guard !trail.visited.contains(next.absoluteString) else {
            throw refuse("to \(next.redactedForLog) not followed: a redirect loop")
        }
        trail.record(next)

        var headers = request.headers
        // Credentials were meant for the origin they were configured for: a redirect must
        // not hand them to another host, port or scheme (a hostile or compromised server
        // could otherwise harvest them, or they would cross to plain http).
        if !Self.sameOrigin(request.url, next) {
            headers.remove("Authorization")
            headers.remove("Proxy-Authorization")
        }
        // Cookies belong to the URL they are sent to: ask the jar again for the new one.
        headers.remove("Cookie")
        if handleCookies, let cookie = cookieJar.header(for: next) { headers["Cookie"] = cookie }
        return ImageDownloadRequest(url: next, headers: headers)
    }

    /// Whether `a` and `b` have the same scheme, host and (effective) port.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased()
            && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }
}
