import Crypto
import Foundation
import WebImage
import WebImageCodecs

/// One encoded proxy result with what its HTTP response needs: the bytes, the format,
/// a strong `ETag` and the `Last-Modified` time. Stored as is in the result caches.
public struct RenderedImage: Sendable, Hashable, DiskStorable {
    public var data: Data
    public var format: ImageFormat
    /// Quoted, as sent in `ETag`.
    public var etag: String
    public var lastModified: Date
    /// The source's `Cache-Control` (or its future `Expires` as max-age), for passthrough.
    public var sourceCacheControl: String?

    public init(data: Data, format: ImageFormat, etag: String, lastModified: Date, sourceCacheControl: String? = nil) {
        self.data = data
        self.format = format
        self.etag = etag
        self.lastModified = lastModified
        self.sourceCacheControl = sourceCacheControl
    }

    /// The ETag of a result: a hash of the server's settings fingerprint, the source's own
    /// validator (its ETag or Last-Modified; the output bytes when it sent neither), the
    /// signed path and the format.
    static func etag(fingerprint: String, sourceValidator: String?, data: Data, path: String, format: ImageFormat) -> String {
        var hash = SHA256()
        hash.update(data: Array("\(fingerprint)\n".utf8))
        if let sourceValidator {
            hash.update(data: Array(sourceValidator.utf8))
        } else {
            hash.update(data: data)
        }
        hash.update(data: Array("\n\(path)\n\(format.rawValue)".utf8))
        let hex = hash.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
        return "\"\(hex)\""
    }

    /// The encoded bytes are the weight in memory.
    package var memoryCost: Int { data.count }

    // MARK: Disk form

    private static let magic = Array("WIPX1\n".utf8)

    /// `WIPX1\n`, one JSON line of metadata, then the image bytes: one file per entry,
    /// written in one go, so a reader in another process sees a whole entry or none.
    package var serialized: Data {
        struct Meta: Encodable {
            var format: String
            var etag: String
            var lastModified: Double
            var cacheControl: String?
        }
        var out = Data(Self.magic)
        let meta = Meta(format: format.rawValue, etag: etag, lastModified: lastModified.timeIntervalSince1970,
                        cacheControl: sourceCacheControl)
        // Two strings and a number always encode.
        out.append((try? JSONEncoder().encode(meta)) ?? Data("{}".utf8))
        out.append(UInt8(ascii: "\n"))
        out.append(data)
        return out
    }

    /// A result is read as bytes alone, so a hit never leaves the request's task when the
    /// kernel has the file cached: its metadata is inline, not in extended data.
    package static var keepsExtendedData: Bool { false }
    package var storedEntry: StoredEntry { StoredEntry(data: serialized) }
    package init?(storedEntry entry: StoredEntry) { self.init(serialized: entry.data) }

    /// Reads ``serialized``; `nil` for anything else (a damaged or foreign file).
    package init?(serialized: Data) {
        struct Meta: Decodable {
            var format: String
            var etag: String
            var lastModified: Double
            var cacheControl: String?
        }
        guard serialized.starts(with: Self.magic),
              let newline = serialized[(serialized.startIndex + Self.magic.count)...].firstIndex(of: UInt8(ascii: "\n")),
              let meta = try? JSONDecoder().decode(Meta.self, from: serialized[(serialized.startIndex + Self.magic.count)..<newline]),
              let format = ImageFormat(rawValue: meta.format), meta.lastModified.isFinite
        else { return nil }
        self.init(
            data: Data(serialized[(newline + 1)...]), format: format, etag: meta.etag,
            lastModified: Date(timeIntervalSince1970: meta.lastModified), sourceCacheControl: meta.cacheControl)
    }
}
