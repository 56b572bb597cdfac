import Foundation

/// What happens to an ``ImageDownloader``'s transfers, in order for each transfer:
/// `started`, `receivedResponse` (when the server answered), then `finished` if an image
/// body arrived whole (a 304 and an empty body have none to hand over), and always
/// `stopped` last.
///
/// Read them from ``ImageDownloader/events()``: each call gives a stream of its own.
public enum DownloadEvent: Sendable, Hashable {
    /// A transfer left the queue and began connecting.
    case started(URL)
    /// The server answered with this status (after redirects).
    case receivedResponse(URL, statusCode: Int)
    /// The transfer received the whole body, and it is not empty (nor a 304's).
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
