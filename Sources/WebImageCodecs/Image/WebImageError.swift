/// The one error type WebImage throws and reports.
///
/// Every failure has a stable numeric ``Code`` with a stable name (scripts read both
/// from `webimage --json`), a human message carrying the dynamic detail (status, URL,
/// limit) and, where there was one, the underlying error.
///
/// ```swift
/// do { _ = try await manager.loadImage(with: url) }
/// catch let error as WebImageError where error.code == .invalidDownloadStatusCode {
///     print(error.httpStatusCode ?? 0)
/// }
/// ```
///
/// The codes are a struct with static members rather than enum cases, so new codes can
/// be added without breaking anyone's exhaustive `switch`.
public struct WebImageError: Error, Sendable, CustomStringConvertible {
    /// A stable error code: SDWebImage's numbers where it has one, and the ones Linux needs.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The number, as in SDWebImage's `SDWebImageError` where it exists.
        public let rawValue: Int
        /// A stable camel-case name, e.g. `"badImageData"`.
        public let name: String

        private init(_ rawValue: Int, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        public var description: String { "\(name) (\(rawValue))" }

        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        // MARK: Image and cache (1xxx)

        /// The URL is nil, empty, malformed, or no loader handles its scheme.
        public static let invalidURL = Code(1000, "invalidURL")
        /// The data is empty, not an image, or cannot be decoded.
        public static let badImageData = Code(1001, "badImageData")
        /// The server answered 304 Not Modified to a conditional request.
        public static let cacheNotModified = Code(1002, "cacheNotModified")
        /// The URL failed before and is blocked; pass `retryFailed` to try again.
        public static let blackListed = Code(1003, "blackListed")
        /// The image declares more pixels than the decoder's limit allows.
        public static let imageTooLarge = Code(1004, "imageTooLarge")
        /// The data is an image format no installed coder decodes or encodes.
        public static let unsupportedFormat = Code(1005, "unsupportedFormat")
        /// An encoder failed to produce data.
        public static let encodingFailed = Code(1006, "encodingFailed")
        /// A disk cache read or write failed.
        public static let cacheIOFailed = Code(1007, "cacheIOFailed")
        /// The image is not in the cache and the request allowed no download (`fromCacheOnly`).
        public static let notInCache = Code(1008, "notInCache")

        // MARK: Download (2xxx)

        /// The loader could not start an operation (for example, it was shut down).
        public static let invalidDownloadOperation = Code(2000, "invalidDownloadOperation")
        /// The HTTP status is not acceptable (see ``WebImageError/httpStatusCode``).
        public static let invalidDownloadStatusCode = Code(2001, "invalidDownloadStatusCode")
        /// The caller cancelled the load.
        public static let cancelled = Code(2002, "cancelled")
        /// The response was malformed: a body shorter than its Content-Length, a connection
        /// lost mid-body, or a response modifier that rejected it.
        public static let invalidDownloadResponse = Code(2003, "invalidDownloadResponse")
        /// The Content-Type is not one of the acceptable ones.
        public static let invalidDownloadContentType = Code(2004, "invalidDownloadContentType")
        /// The transfer did not finish within the timeout.
        public static let timedOut = Code(2005, "timedOut")
        /// No connection could be made (refused, unreachable).
        public static let cannotConnect = Code(2006, "cannotConnect")
        /// The host name did not resolve.
        public static let cannotFindHost = Code(2007, "cannotFindHost")
        /// The body is larger than the configured maximum.
        public static let responseTooLarge = Code(2008, "responseTooLarge")
        /// More redirects than allowed, a redirect loop, or a redirect to a scheme not allowed.
        public static let tooManyRedirects = Code(2009, "tooManyRedirects")
        /// The connection closed before a response arrived.
        public static let connectionLost = Code(2010, "connectionLost")
        /// The target's address is one the downloader's address policy refuses (loopback,
        /// private, link-local, multicast, unspecified): the SSRF guard. Never block-listed.
        public static let forbiddenAddress = Code(2011, "forbiddenAddress")
        /// The URL (the first one or a redirect hop) is outside the downloader's source
        /// allowlist (``WebImage/HopPolicy``). Never block-listed.
        public static let sourceNotAllowed = Code(2012, "sourceNotAllowed")

        /// All codes, for tools that list or parse them.
        public static let all: [Code] = [
            .invalidURL, .badImageData, .cacheNotModified, .blackListed, .imageTooLarge,
            .unsupportedFormat, .encodingFailed, .cacheIOFailed, .notInCache,
            .invalidDownloadOperation, .invalidDownloadStatusCode, .cancelled,
            .invalidDownloadResponse, .invalidDownloadContentType, .timedOut, .cannotConnect,
            .cannotFindHost, .responseTooLarge, .tooManyRedirects, .connectionLost, .forbiddenAddress,
            .sourceNotAllowed,
        ]
    }

    /// What went wrong, as a stable code.
    public var code: Code
    /// A readable explanation with the dynamic detail.
    public var message: String
    /// The HTTP status, for ``Code/invalidDownloadStatusCode`` and ``Code/cacheNotModified``.
    public var httpStatusCode: Int?
    /// The error that caused this one, if any.
    public var underlyingError: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, httpStatusCode: Int? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.httpStatusCode = httpStatusCode
        self.underlyingError = underlying
    }

    public var description: String { "\(code.name) (\(code.rawValue)): \(message)" }

    // MARK: Shorthands for the common ones

    public static func badImageData(_ message: String) -> WebImageError { .init(.badImageData, message) }
    public static func imageTooLarge(_ message: String) -> WebImageError { .init(.imageTooLarge, message) }
    public static func unsupportedFormat(_ message: String) -> WebImageError { .init(.unsupportedFormat, message) }
    public static func cancelled(_ message: String = "The load was cancelled") -> WebImageError { .init(.cancelled, message) }
}

extension WebImageError {
    /// Runs `body`, whose errors are untyped only because it passes through a
    /// `rethrows` function (`Data.withUnsafeBytes`), and rethrows them typed; anything
    /// that is not a ``WebImageError`` becomes one with `code`.
    package static func typed<T>(as code: Code, _ body: () throws -> T) throws(WebImageError) -> T {
        do {
            return try body()
        } catch let error as WebImageError {
            throw error
        } catch {
            throw WebImageError(code, "\(error)")
        }
    }
}
