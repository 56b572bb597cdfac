import Foundation

extension URL {
    /// The URL as text for an error message or a log line, with the user and password
    /// of its user info replaced by `***` (`http://***:***@host/a.png`).
    ///
    /// Messages end up in logs, crash reports and CLI output that are shared freely;
    /// credentials in a URL must not travel with them. A URL without user info comes
    /// back as `absoluteString`. Pure; callable from any thread.
    public var redactedForLog: String {
        guard user != nil || password != nil else { return absoluteString }
        if var components = URLComponents(url: self, resolvingAgainstBaseURL: true) {
            if components.user != nil { components.percentEncodedUser = "***" }
            if components.password != nil { components.percentEncodedPassword = "***" }
            if let text = components.string { return text }
        }
        // Unparseable as components: keep only what cannot carry the credentials.
        return "\(scheme ?? "url")://***@\(host ?? "")"
    }
}

extension String {
    /// This text, if it parses as a URL with user info, with the user and password
    /// replaced by `***` (see ``Foundation/URL/redactedForLog``); otherwise unchanged.
    public var redactedURLForLog: String {
        guard contains("@"), let url = URL(string: self) else { return self }
        return url.redactedForLog
    }
}
