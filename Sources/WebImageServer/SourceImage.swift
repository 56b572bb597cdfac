import Foundation
import WebImage
import WebImageCodecs

/// A source's encoded bytes and what the proxy keeps of its HTTP response: the
/// validators its results' ETag and `Last-Modified` derive from.
struct SourceImage: Sendable, DiskStorable {
    var data: Data
    /// The source's `ETag`, verbatim.
    var etag: String?
    /// The source's `Last-Modified`, verbatim.
    var lastModified: String?
    /// The source's `Cache-Control` and `Expires`, for `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`.
    var cacheControl: String?
    var expires: String?

    /// The bytes are the weight in memory.
    var memoryCost: Int { data.count }

    /// Whether the source said `Cache-Control: no-store` (then the proxy does not keep it),
    /// read as the library reads a response's (``WebImage/HTTPResponseInfo/isNoStore``).
    var isNoStore: Bool {
        cacheControl.map { HTTPFreshness.directives($0).keys.contains("no-store") } ?? false
    }

    /// The validator a result's ETag hashes: the source's ETag, else its Last-Modified.
    var validator: String? { etag ?? lastModified }

    // MARK: Disk form

    private static let magic = Array("WISRC1\n".utf8)

    private struct Meta: Codable {
        var etag: String?
        var lastModified: String?
        var cacheControl: String?
        var expires: String?
    }

    /// `WISRC1\n`, one JSON line of validators, then the bytes: one file per source,
    /// written at once, so a reader in another process sees a whole entry or none.
    var serialized: Data {
        var out = Data(Self.magic)
        // Two optional strings always encode.
        let meta = Meta(etag: etag, lastModified: lastModified, cacheControl: cacheControl, expires: expires)
        out.append((try? JSONEncoder().encode(meta)) ?? Data("{}".utf8))
        out.append(UInt8(ascii: "\n"))
        out.append(data)
        return out
    }

    init(data: Data, etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, expires: String? = nil) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expires = expires
    }

    /// Reads ``serialized``; `nil` for anything else (a damaged or foreign file).
    init?(serialized: Data) {
        let start = serialized.startIndex + Self.magic.count
        guard serialized.starts(with: Self.magic),
              let newline = serialized[start...].firstIndex(of: UInt8(ascii: "\n")),
              let meta = try? JSONDecoder().decode(Meta.self, from: serialized[start..<newline])
        else { return nil }
        self.init(data: Data(serialized[(newline + 1)...]), etag: meta.etag, lastModified: meta.lastModified,
                  cacheControl: meta.cacheControl, expires: meta.expires)
    }
}
