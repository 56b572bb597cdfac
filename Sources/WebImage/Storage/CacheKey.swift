import Crypto
import Foundation

/// Cache key helpers with SDWebImage's rules: derived keys, scale and disk file names.
///
/// Keys are plain strings, normally the URL. A derived key (a thumbnail, a transformed
/// image) inserts `-<suffix>` before the path extension and keeps query and fragment,
/// so it still looks like, and sorts beside, the original URL. All functions are pure.
public enum CacheKey {
    /// The key for `key` transformed by something whose cache key is `suffix`.
    ///
    /// `http://foo/image.png?foo=bar#mark` + `T` gives `http://foo/image-T.png?foo=bar#mark`.
    /// Without a path extension the suffix goes at the very end (`http://foo/image?a=1-T`),
    /// as SDWebImage does.
    public static func transformed(_ key: String, suffix: String) -> String {
        let parts = Components(key)
        guard let ext = parts.pathExtension else { return key + "-" + suffix }
        let insert = parts.hasScheme ? percentEncodedPath(suffix) : suffix
        let stem = parts.path.dropLast(ext.count + 1)
        return parts.prefix + stem + "-" + insert + "." + ext + parts.suffix
    }

    /// The key under which a thumbnail of `key` decoded to fit `pixelSize` is kept.
    public static func thumbnailed(_ key: String, pixelSize: PixelSize, preserveAspectRatio: Bool = true) -> String {
        transformed(key, suffix: thumbnailSuffix(pixelSize: pixelSize, preserveAspectRatio: preserveAspectRatio))
    }

    /// The suffix naming a thumbnail size, e.g. `Thumbnail({400,300},1)`.
    public static func thumbnailSuffix(pixelSize: PixelSize, preserveAspectRatio: Bool) -> String {
        "Thumbnail({\(pixelSize.width),\(pixelSize.height)},\(preserveAspectRatio ? 1 : 0))"
    }

    /// The image scale a key names: 3 for `@3x.`, 2 for `@2x.` (also percent-encoded,
    /// `%402x.`, in http(s) URLs), otherwise 1.
    public static func scale(for key: String) -> Double {
        // Every load asks this twice, so the key is searched as bytes: Foundation's
        // `contains` bridges through NSString on Linux, 5 µs a load in a manager profile.
        var key = key
        return key.withUTF8 { bytes -> Double in
            guard bytes.count >= 8 else { return 1 }
            let isURL = bytes.starts(with: "http://".utf8) || bytes.starts(with: "https://".utf8)
            for marker in scaleMarkers where (isURL || !marker.urlOnly) && find(marker.bytes, in: bytes) {
                return marker.scale
            }
            return 1
        }
    }

    /// The markers ``scale(for:)`` looks for, in the order it looks.
    private static let scaleMarkers: [(bytes: [UInt8], scale: Double, urlOnly: Bool)] = [
        (Array("@2x.".utf8), 2, false), (Array("%402x.".utf8), 2, true),
        (Array("@3x.".utf8), 3, false), (Array("%403x.".utf8), 3, true),
    ]

    /// Whether `needle` occurs in `bytes`.
    private static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if needle.indices.allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
        }
        return false
    }

    /// The disk file name for `key`: lowercase hex MD5 of the key, plus the key's path
    /// extension when it has one of at most 8 ASCII letters and digits (query and
    /// fragment ignored), so tools recognise the files and no name grows unbounded.
    public static func fileName(for key: String) -> String {
        // Every disk hit pays for this, so an ASCII key (the usual URL) is read as bytes;
        // Character-based String searching was a third of a 50 KB hit.
        var key = key
        return key.withUTF8 { utf8 -> String in
            let digest = Insecure.MD5.hash(data: UnsafeRawBufferPointer(utf8))
            var name = [UInt8]()
            name.reserveCapacity(41)
            for byte in digest {
                name.append(hexDigits[Int(byte >> 4)])
                name.append(hexDigits[Int(byte & 0x0F)])
            }
            if utf8.allSatisfy({ $0 < 0x80 }) {
                if let range = asciiPathExtension(utf8), range.count <= 8, utf8[range].allSatisfy(isASCIIAlphanumeric) {
                    name.append(UInt8(ascii: "."))
                    name.append(contentsOf: utf8[range])
                }
            } else if let ext = Components(String(decoding: utf8, as: UTF8.self)).pathExtension?.utf8,
                      ext.count <= 8, ext.allSatisfy(isASCIIAlphanumeric) {
                name.append(UInt8(ascii: "."))
                name.append(contentsOf: ext)
            }
            return String(decoding: name, as: UTF8.self)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Whether `name` is one ``fileName(for:)`` could give: 32 lowercase hex digits, then
    /// an optional `.` and an extension of 1 to 8 ASCII letters and digits.
    static func isFileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 32, bytes[..<32].allSatisfy(hexDigits.contains) else { return false }
        guard let dot = bytes.dropFirst(32).first else { return true }
        let ext = bytes.dropFirst(33)
        return dot == UInt8(ascii: ".") && (1...8).contains(ext.count) && ext.allSatisfy(isASCIIAlphanumeric)
    }

    /// ``Components/pathExtension`` for an all-ASCII key, where every byte is one
    /// Character: the byte range of the extension, if any.
    private static func asciiPathExtension(_ key: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let count = key.count
        let end = key.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? count
        var pathStart = 0
        var i = 0
        while i + 2 < count, !(key[i] == UInt8(ascii: ":") && key[i + 1] == UInt8(ascii: "/") && key[i + 2] == UInt8(ascii: "/")) {
            i += 1
        }
        if i + 2 < count, i + 3 <= end, i > 0,
           key[0..<i].allSatisfy({ isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) {
            pathStart = key[(i + 3)..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        }
        let lastStart = key[pathStart..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? pathStart
        guard let dot = key[lastStart..<end].lastIndex(of: UInt8(ascii: ".")), dot != lastStart, dot + 1 < end else {
            return nil
        }
        return (dot + 1)..<end
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func percentEncodedPath(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A key split into `prefix` (scheme and authority), `path`, and `suffix` (query and
    /// fragment, from the first `?` or `#`).
    private struct Components {
        var prefix: Substring
        var path: Substring
        var suffix: Substring
        var hasScheme: Bool

        init(_ key: String) {
            let end = key.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? key.endIndex
            var pathStart = key.startIndex
            hasScheme = false
            if let marker = key.range(of: "://"), marker.upperBound <= end,
               key[..<marker.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
               !key[..<marker.lowerBound].isEmpty {
                hasScheme = true
                pathStart = key[marker.upperBound..<end].firstIndex(of: "/") ?? end
            }
            prefix = key[..<pathStart]
            path = key[pathStart..<end]
            suffix = key[end...]
        }

        /// The extension of the last path component, if it has a non-empty one.
        var pathExtension: Substring? {
            let last = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? path
            guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return nil }
            let ext = last[last.index(after: dot)...]
            return ext.isEmpty ? nil : ext
        }
    }
}
