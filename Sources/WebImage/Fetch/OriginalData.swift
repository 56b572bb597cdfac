import Foundation

/// A source's encoded bytes as fetched, with what the pipeline keeps of the response: the
/// validators for a later conditional fetch (and the ETag a result derives from) and the
/// caching headers.
///
/// The value of the pipeline's originals stage (``OriginalStage``), kept inline in one disk
/// entry per source.
package struct OriginalData: Sendable, DiskStorable {
    package var data: Data
    /// The source's `ETag`, verbatim.
    package var etag: String?
    /// The source's `Last-Modified`, verbatim.
    package var lastModified: String?
    /// The source's `Cache-Control` and `Expires`, for `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`.
    package var cacheControl: String?
    package var expires: String?

    package init(
        data: Data, etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, expires: String? = nil
    ) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expires = expires
    }

    /// The body of `http` with the headers kept of it.
    package init(data: Data, http: HTTPResponseInfo) {
        self.init(data: data, etag: http.headers["ETag"], lastModified: http.headers["Last-Modified"],
                  cacheControl: http.headers["Cache-Control"], expires: http.headers["Expires"])
    }

    /// The bytes are the weight in memory.
    package var memoryCost: Int { data.count }

    /// Whether the source said `Cache-Control: no-store` (then no cache keeps it), read as
    /// the library reads a response's (``HTTPResponseInfo/isNoStore``).
    package var isNoStore: Bool {
        cacheControl.map { HTTPFreshness.directives($0).keys.contains("no-store") } ?? false
    }

    /// The validator a result's ETag hashes: the source's ETag, else its Last-Modified.
    package var validator: String? { etag ?? lastModified }

    /// What a conditional fetch of this copy sends (``ImageFetching``).
    package var validators: HTTPValidators { HTTPValidators(etag: etag, lastModified: lastModified) }

    // MARK: Disk form

    /// The proxy's source entries were written in this form before it moved here; it is
    /// unchanged, so their caches stay valid.
    private static let magic = Array("WISRC1\n".utf8)

    private struct Meta: Codable {
        var etag: String?
        var lastModified: String?
        var cacheControl: String?
        var expires: String?
    }

    /// `WISRC1\n`, one JSON line of validators, then the bytes: one file per source,
    /// written at once, so a reader in another process sees a whole entry or none.
    package var serialized: Data {
        var out = Data(Self.magic)
        // Optional strings always encode.
        let meta = Meta(etag: etag, lastModified: lastModified, cacheControl: cacheControl, expires: expires)
        out.append((try? JSONEncoder().encode(meta)) ?? Data("{}".utf8))
        out.append(UInt8(ascii: "\n"))
        out.append(data)
        return out
    }

    /// Reads ``serialized``; `nil` for anything else (a damaged or foreign file).
    package init?(serialized: Data) {
        let start = serialized.startIndex + Self.magic.count
        guard serialized.starts(with: Self.magic),
              let newline = serialized[start...].firstIndex(of: UInt8(ascii: "\n")),
              let meta = try? JSONDecoder().decode(Meta.self, from: serialized[start..<newline])
        else { return nil }
        self.init(data: Data(serialized[(newline + 1)...]), etag: meta.etag, lastModified: meta.lastModified,
                  cacheControl: meta.cacheControl, expires: meta.expires)
    }
}
