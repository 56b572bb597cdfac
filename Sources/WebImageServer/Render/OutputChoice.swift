import Foundation
import WebImageCodecs

/// How a result's format is chosen, as imgproxy chooses it (docs/usage/processing.mdx
/// "format", processing.determineOutputFormat), with the server's settings:
///
/// - The URL names a format (`format`, `ext`, the extension): that one, unless
///   `IMGPROXY_ENFORCE_AVIF`/`_WEBP` and the client's `Accept` say otherwise.
/// - Else AVIF when `IMGPROXY_AUTO_AVIF` (on by default here) and `Accept` names it (not
///   for animations), else WebP likewise (`IMGPROXY_AUTO_WEBP`), else the source's own
///   format when it is a preferred one (`IMGPROXY_PREFERRED_FORMATS`, jpeg,png,gif), else
///   the first preferred format that can hold the result (animation, transparency).
///
/// An animated result (a source with several frames and `max_animation_frames` > 1)
/// stays animated in GIF and WebP; other formats get the first frame. Unlike imgproxy,
/// an animated source whose own format cannot be written animated (APNG) falls through to
/// the first preferred format that can (GIF), so a browser always gets the animation.
struct OutputChoice: Sendable, Hashable {
    /// The format the URL names; `nil` chooses.
    var named: ImageFormat?
    var preferAVIF = false
    var preferWebP = false
    var enforceAVIF = false
    var enforceWebP = false
    var preferred: [ImageFormat]
    /// Whether the answer depends on `Accept` (`Vary: Accept`).
    var variesWithAccept: Bool

    /// Formats an animation can be written in, frame by frame.
    static let animatedFormats: Set<ImageFormat> = [.gif, .webp]
    /// Formats that can hold transparency.
    static let alphaFormats: Set<ImageFormat> = [.png, .webp, .avif, .gif, .heic, .tiff, .jxl, .ico]

    init(named: ImageFormat?, accept: String?, settings: OutputSettings, coder: any ImageCoder) {
        self.named = named
        let types = Self.acceptedTypes(accept)
        let avif = types.contains("image/avif") && coder.canEncode(to: .avif)
        let webp = types.contains("image/webp") && coder.canEncode(to: .webp)
        preferAVIF = (settings.autoAVIF || settings.enforceAVIF) && avif
        preferWebP = (settings.autoWebP || settings.enforceWebP) && webp
        enforceAVIF = settings.enforceAVIF && avif
        enforceWebP = settings.enforceWebP && webp
        preferred = settings.preferredFormats.filter { coder.canEncode(to: $0) }
        if preferred.isEmpty { preferred = [.jpeg] }
        variesWithAccept = settings.enforceAVIF || settings.enforceWebP
            || (named == nil && (settings.autoAVIF || settings.autoWebP))
    }

    /// The media types `accept` lists, lowercased, without those refused with `q=0`.
    static func acceptedTypes(_ accept: String?) -> Set<Substring> {
        guard let accept else { return [] }
        return Set(accept.lowercased().split(separator: ",").compactMap { item -> Substring? in
            let parts = item.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters(in: .whitespaces), !type.isEmpty else { return nil }
            let refused = parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
            return refused ? nil : Substring(type)
        })
    }

    /// The part of the result's cache key this choice contributes.
    var cacheKey: String {
        (named?.rawValue ?? "auto") + (preferAVIF ? "+avif" : "") + (preferWebP ? "+webp" : "")
            + (enforceAVIF ? "!avif" : "") + (enforceWebP ? "!webp" : "")
    }

    /// The output format and whether it is animated, for a `source` that is `animated`
    /// and whose result `expectsAlpha` (transparency, padding or extend, and no background).
    func resolve(source: ImageFormat, animated: Bool, expectsAlpha: Bool) -> (ImageFormat, animated: Bool) {
        let format: ImageFormat
        if let named {
            if enforceAVIF && !animated { format = .avif } else if enforceWebP { format = .webp } else { format = named }
        } else if preferAVIF && !animated {
            format = .avif
        } else if preferWebP {
            format = .webp
        } else {
            let family = source == .apng ? ImageFormat.png : source
            if preferred.contains(family), !animated || Self.animatedFormats.contains(family) {
                format = family
            } else {
                format = preferred.first {
                    (!animated || Self.animatedFormats.contains($0)) && (!expectsAlpha || Self.alphaFormats.contains($0))
                } ?? preferred[0]
            }
        }
        return (format, animated && Self.animatedFormats.contains(format))
    }
}
