import Foundation

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
