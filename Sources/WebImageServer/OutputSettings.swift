import Crypto
import Foundation
import WebImageCodecs

/// The server-wide defaults of what a result looks like, each settable per request by a
/// URL option where imgproxy has one, and each read from imgproxy's environment variable
/// of the same meaning (see ``ProxyConfig/applyingEnvironment(_:)``).
public struct OutputSettings: Sendable, Hashable {
    /// Lossy quality when neither the URL nor ``formatQuality`` names one
    /// (`IMGPROXY_QUALITY`). Default 80; clamped to ``ServeSetting/quality``.
    public var quality = 80 { didSet { quality = ServeSetting.quality.clamp(quality) } }
    /// Per-format qualities (`IMGPROXY_FORMAT_QUALITY`). Default imgproxy's: WebP 79, AVIF 63, JPEG XL 77.
    public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]
    /// Answer AVIF to clients whose `Accept` names it, for outputs the URL does not name
    /// (`IMGPROXY_AUTO_AVIF`). Default `true` (imgproxy: `false`).
    public var autoAVIF = true
    /// The same for WebP (`IMGPROXY_AUTO_WEBP`, or the older `IMGPROXY_ENABLE_WEBP_DETECTION`).
    /// Default `true` (imgproxy: `false`).
    public var autoWebP = true
    /// Answer AVIF to clients that accept it even when the URL names another format
    /// (`IMGPROXY_ENFORCE_AVIF`). Default `false`.
    public var enforceAVIF = false
    /// The same for WebP (`IMGPROXY_ENFORCE_WEBP`). Default `false`.
    public var enforceWebP = false
    /// Formats a result keeps when its source has one of them, else the first that fits
    /// (`IMGPROXY_PREFERRED_FORMATS`). Default jpeg, png, gif.
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// Source formats returned unprocessed (`IMGPROXY_SKIP_PROCESSING_FORMATS`). Default none.
    public var skipProcessingFormats: Set<ImageFormat> = []
    /// Apply EXIF orientation (`IMGPROXY_AUTO_ROTATE`). Default `true`.
    public var autoRotate = true
    /// Remove metadata from results (`IMGPROXY_STRIP_METADATA`). Default `true`; our
    /// encoders never write EXIF, IPTC or XMP, so results are always stripped (documented).
    public var stripMetadata = true
    /// `IMGPROXY_KEEP_COPYRIGHT`. Default `true` (no metadata is written either way).
    public var keepCopyright = true
    /// Convert to sRGB and drop the profile (`IMGPROXY_STRIP_COLOR_PROFILE`). Default
    /// `true`; decoding always converts to sRGB, so this is always the behaviour.
    public var stripColorProfile = true
    /// The watermark image's encoded bytes (`IMGPROXY_WATERMARK_DATA`/`_PATH`/`_URL`,
    /// `--watermark-path`); `nil`: `watermark` options do nothing, as in imgproxy.
    public var watermark: Data?
    /// Opacity the URL's watermark opacity is multiplied by (`IMGPROXY_WATERMARK_OPACITY`).
    /// Default 1; clamped to 0…1.
    public var watermarkOpacity = 1.0 { didSet { watermarkOpacity = watermarkOpacity.isNaN ? 1 : min(max(watermarkOpacity, 0), 1) } }
    /// Answer with `Content-Disposition: attachment` unless the URL says otherwise
    /// (`IMGPROXY_RETURN_ATTACHMENT`, imgproxy 3). Default `false`.
    public var returnAttachment = false
    /// Read `Sec-CH-DPR`/`DPR` and `Sec-CH-Width`/`Width` (`IMGPROXY_ENABLE_CLIENT_HINTS`).
    /// Default `false`.
    public var clientHints = false
    /// Pass the source's `Cache-Control` (or a future `Expires`) on
    /// (`IMGPROXY_CACHE_CONTROL_PASSTHROUGH`). Default `false`.
    public var cacheControlPassthrough = false
    /// Result size limit, longest side in pixels (`IMGPROXY_MAX_RESULT_DIMENSION`); 0 is none.
    public var maxResultDimension = 0
    /// How far a JPEG source shrinks while it is decoded (`WEBIMAGE_SHRINK_ON_LOAD`,
    /// `--shrink-on-load`): libvips' thumbnail rule (the default: the resample keeps a factor
    /// 2), or imgproxy's (one step further: less work, imgproxy's own pixels).
    public var shrinkOnLoad: ShrinkOnLoadRule = .libvips

    public init() {}

    /// The settings text the results' fingerprint hashes.
    var fingerprint: String {
        var fields = [
            "q=\(quality)", "fq=" + formatQuality.keys.map(\.rawValue).sorted().map { "\($0):\(formatQuality[ImageFormat(rawValue: $0) ?? .undefined] ?? 0)" }.joined(separator: ","),
            "auto=\(autoAVIF),\(autoWebP)", "enforce=\(enforceAVIF),\(enforceWebP)",
            "preferred=" + preferredFormats.map(\.rawValue).joined(separator: ","),
            "skip=" + skipProcessingFormats.map(\.rawValue).sorted().joined(separator: ","),
            "rotate=\(autoRotate)", "strip=\(stripMetadata),\(keepCopyright),\(stripColorProfile)",
            "hints=\(clientHints)", "mrd=\(maxResultDimension)",
            "wmo=\(watermarkOpacity)", "sol=\(shrinkOnLoad.rawValue)",
        ]
        if let watermark {
            fields.append("wm=" + SHA256.hash(data: watermark).map { String(format: "%02x", $0) }.joined())
        }
        return fields.joined(separator: ";")
    }
}
