import Foundation
import WebImage

/// One `/info` answer as cached: the JSON bytes, a strong `ETag` and the `Last-Modified`
/// time (the source's). Stored in the result caches beside the images.
struct InfoResult: Sendable, Hashable, DiskStorable {
    var json: Data
    /// Quoted, as sent.
    var etag: String
    var lastModified: Date

    /// The JSON and a little for the validators.
    var memoryCost: Int { json.count + 64 }

    // MARK: Disk form

    private static let magic = Array("WIINF1\n".utf8)

    private struct Meta: Codable {
        var etag: String
        var lastModified: Double
    }

    /// `WIINF1\n`, one JSON line of metadata, then the answer: one file per entry, written
    /// at once, so a reader in another process sees a whole entry or none.
    var serialized: Data {
        var out = Data(Self.magic)
        // A string and a number always encode.
        out.append((try? JSONEncoder().encode(Meta(etag: etag, lastModified: lastModified.timeIntervalSince1970))) ?? Data("{}".utf8))
        out.append(UInt8(ascii: "\n"))
        out.append(json)
        return out
    }

    init(json: Data, etag: String, lastModified: Date) {
        self.json = json
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Read as bytes alone, as ``RenderedImage`` is.
    static var keepsExtendedData: Bool { false }
    var storedEntry: StoredEntry { StoredEntry(data: serialized) }
    init?(storedEntry entry: StoredEntry) { self.init(serialized: entry.data) }

    /// Reads ``serialized``; `nil` for anything else (a damaged or foreign file).
    init?(serialized: Data) {
        let start = serialized.startIndex + Self.magic.count
        guard serialized.starts(with: Self.magic),
              let newline = serialized[start...].firstIndex(of: UInt8(ascii: "\n")),
              let meta = try? JSONDecoder().decode(Meta.self, from: serialized[start..<newline]), meta.lastModified.isFinite
        else { return nil }
        self.init(json: Data(serialized[(newline + 1)...]), etag: meta.etag, lastModified: Date(timeIntervalSince1970: meta.lastModified))
    }
}
