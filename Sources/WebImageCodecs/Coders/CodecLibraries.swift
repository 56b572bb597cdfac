import CAVIF
import CGIF
import CJPEGShim
import CPNG
import CWebP

/// The versions of the C libraries that encode and decode, read from the libraries at
/// run time (libpng, libwebp, libavif) or fixed when WebImage was built (libjpeg-turbo,
/// giflib). A server keys cached outputs with them: another encoder version may write
/// other bytes for the same request.
public enum CodecLibraries {
    /// `name version` pairs, one per library, in a fixed order.
    public static let versions: [(name: String, version: String)] = [
        ("libjpeg-turbo", jpegVersion),
        ("libpng", png_get_libpng_ver(nil).map { String(cString: $0) } ?? "?"),
        ("giflib", "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)"),
        ("libwebp", webpVersion),
        ("libavif", avifVersion().map { String(cString: $0) } ?? "?"),
    ]

    /// The versions as one line: `libjpeg-turbo 2.1.5, libpng 1.6.39, …`.
    public static var summary: String { versions.map { "\($0.name) \($0.version)" }.joined(separator: ", ") }

    /// 2001005 → "2.1.5".
    private static var jpegVersion: String {
        let v = Int(wi_jpeg_library_version())
        return "\(v / 1_000_000).\(v / 1000 % 1000).\(v % 1000)"
    }

    /// 0x010300 → "1.3.0".
    private static var webpVersion: String {
        let v = Int(WebPGetEncoderVersion())
        return "\(v >> 16 & 0xFF).\(v >> 8 & 0xFF).\(v & 0xFF)"
    }
}
