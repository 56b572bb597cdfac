import Foundation

/// The request a transfer sends, and the key that decides which callers may share it.
extension ImageDownloader {
    /// The request to send: default headers, credentials, validators, cookies, then the
    /// request modifier, which may veto it. Runs on the thread that calls
    /// ``loadImage(with:options:context:observer:)`` (or WebImageCompat's
    /// `requestImage(with:options:context:progress:completed:)`), before the request is
    /// queued: what the modifier returns is part of the coalescing key.
    func makeRequest(
        url: URL, options: WebImageOptions, context: WebImageContext
    ) throws(WebImageError) -> ImageDownloadRequest {
        var headers = config.httpHeaders
        if let user = config.username, let password = config.password {
            headers["Authorization"] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        if options.isConditional, let validators = context.validators {
            if let etag = validators.etag { headers["If-None-Match"] = etag }
            if let date = validators.lastModified { headers["If-Modified-Since"] = date }
        }
        if options.contains(.handleCookies), let cookie = cookieJar.header(for: url) {
            headers["Cookie"] = cookie
        }
        var request = ImageDownloadRequest(url: url, headers: headers)
        if let modifier = context.downloadRequestModifier ?? config.requestModifier {
            guard let modified = modifier(request) else {
                throw WebImageError(.invalidDownloadOperation, "The request modifier vetoed the request for \(url.redactedForLog)")
            }
            guard canRequestImage(for: modified.url) else {
                throw WebImageError(.invalidURL, "The request modifier produced a URL that is not http(s): \(modified.url.redactedForLog)")
            }
            request = modified
        }
        return request
    }

    /// Which transfers a request may join: equal only when everything that shapes the
    /// request or its response is equal: the method, the URL, every header after the
    /// request modifier (credentials, cookies and validators included, so one user's
    /// private image never reaches another) and the TLS settings. Header order and the
    /// case of names do not matter.
    static func coalescingKey(for request: ImageDownloadRequest, options: WebImageOptions) -> String {
        var key = "GET " + request.url.absoluteString
        var lines: [String] = []
        for field in request.headers {
            let line: String = field.name.lowercased() + ": " + field.value
            lines.append(line)
        }
        lines.sort()
        for line in lines { key += "\n" + line }
        if options.contains(.allowInvalidSSLCertificates) { key += "\n#tls: no verification" }
        return key
    }
}
