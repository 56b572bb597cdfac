/// The underlying error of an empty response body: the answer's status and headers, so a
/// caller that accepts error statuses (a bulk job reading `Retry-After` from an empty 429)
/// still sees them.
package struct EmptyBodyResponse: Error, Sendable {
    /// The response whose body was empty.
    package var http: HTTPResponseInfo
}
