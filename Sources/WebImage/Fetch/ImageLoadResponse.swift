import Foundation

/// What a loader delivers: a partial image while progressive bytes arrive, then the
/// final image with its data.
public struct ImageLoadResponse: Sendable {
    /// The URL that was requested.
    public var url: URL
    /// The image: partial when ``isFinished`` is `false`. `nil` only when the request
    /// asked for ``WebImageOptions/avoidDecodeImage``.
    public var image: DecodedImage?
    /// The whole body, on the final response; `nil` on partial ones.
    public var data: Data?
    /// `false` for partial progressive images; `true` exactly once, last.
    public var isFinished: Bool
    /// Status, headers and validators for http(s) loads; `nil` for `file:` and `data:`.
    public var http: HTTPResponseInfo?
    /// Network attempts the transfer took (``RetryPolicy``); 1 without retries, and for
    /// `file:` and `data:`.
    public var attempts: Int

    /// Creates a response.
    public init(
        url: URL, image: DecodedImage?, data: Data?, isFinished: Bool, http: HTTPResponseInfo? = nil, attempts: Int = 1
    ) {
        self.url = url
        self.image = image
        self.data = data
        self.isFinished = isFinished
        self.http = http
        self.attempts = attempts
    }
}

extension ImageLoadResponse {
    /// Whether the transfer answered 304 Not Modified, which has no body of its own: an
    /// answer to a conditional request, which the caller turns into its stored copy.
    var isNotModified: Bool { http?.statusCode == 304 }
}
