import Foundation

/// Loads images embedded in `data:` URLs (`data:image/png;base64,…`, RFC 2397).
///
/// The payload is decoded (base64 or percent-encoding) and the image decoded on the
/// decode queue. A malformed URL fails with ``WebImageCodecs/WebImageError/Code/invalidURL``.
public final class DataURLImageLoader: ImageLoader, ImageFetching {
    /// The coders used when the context names none.
    public let coders: any ImageCoder
    /// Where decoding runs.
    public let decodeQueue: DecodeQueue

    /// Creates a loader decoding with `coders` on `decodeQueue`.
    public init(coders: any ImageCoder = ImageCodersManager.shared, decodeQueue: DecodeQueue = .shared) {
        self.coders = coders
        self.decodeQueue = decodeQueue
    }

    /// `true` for `data:` URLs.
    public func canRequestImage(for url: URL?) -> Bool { url?.scheme?.lowercased() == "data" }

    /// Decodes the URL's payload and then the image; see ``ImageLoader``.
    public func loadImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver
    ) async throws(WebImageError) -> ImageLoadResponse {
        try await LocalImageLoad.load(
            url: url, options: options, context: context, observer: observer, coders: coders, decodeQueue: decodeQueue,
            fetcher: self)
    }

    /// The `data:` fetcher (``ImageFetching``): the URL's payload (``payload(of:)``), on
    /// the calling task; it has no validators.
    package func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        guard canRequestImage(for: url) else { throw WebImageError(.invalidURL, "Not a data URL: \(url.absoluteString)") }
        return .body(OriginalData(data: try Self.payload(of: url.absoluteString)), http: nil)
    }

    /// The bytes a `data:` URL carries (base64 or percent-encoded). Runs on the caller's
    /// thread; does no I/O.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/invalidURL`` for a malformed URL or payload.
    public static func payload(of text: String) throws(WebImageError) -> Data {
        guard text.count > 5, text.prefix(5).lowercased() == "data:", let comma = text.firstIndex(of: ",") else {
            throw WebImageError(.invalidURL, "Malformed data URL")
        }
        let start = text.index(text.startIndex, offsetBy: 5)
        let meta = text[start..<comma].lowercased()
        let payload = String(text[text.index(after: comma)...])
        if meta.hasSuffix(";base64") {
            let base64 = payload.removingPercentEncoding ?? payload
            guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
                throw WebImageError(.invalidURL, "The data URL's base64 payload is malformed")
            }
            return data
        }
        return try percentDecoded(payload)
    }

    /// Percent-decodes to raw bytes (the payload need not be UTF-8 text).
    private static func percentDecoded(_ text: String) throws(WebImageError) -> Data {
        let bytes = Array(text.utf8)
        var out = Data(capacity: bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) else {
                    throw WebImageError(.invalidURL, "The data URL's payload is not valid percent-encoding")
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
