import Foundation

/// What happens to an ``ImageDownloader``'s transfers, in order for each transfer:
/// `started`, `receivedResponse` (when the server answered), then `finished` if the
/// whole body arrived, and always `stopped` last.
///
/// Read them from ``ImageDownloader/events()``: each call gives a stream of its own.
public enum DownloadEvent: Sendable, Hashable {
    /// A transfer left the queue and began connecting.
    case started(URL)
    /// The server answered with this status (after redirects).
    case receivedResponse(URL, statusCode: Int)
    /// The transfer received the whole body.
    case finished(URL)
    /// The transfer ended: finished, failed or cancelled.
    case stopped(URL)

    /// The transfer's URL.
    public var url: URL {
        switch self {
        case .started(let url), .receivedResponse(let url, _), .finished(let url), .stopped(let url): url
        }
    }
}
