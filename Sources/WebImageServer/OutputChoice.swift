import Foundation
import WebImageCodecs

/// How a request's output format is chosen: named by the URL (`f:`, the extension), or
/// negotiated from `Accept` once the source is known.
///
/// Negotiated (`Vary: Accept`):
/// - an **animated** source (more than one frame) stays animated: animated WebP when the
///   client accepts WebP, else GIF. AVIF is not chosen for animations: our AVIF encoder
///   writes sequences only from fully decoded frames, at several seconds per second of
///   animation, where WebP and GIF encode frame by frame.
/// - a still source: AVIF when accepted (and an AVIF encoder is installed), else WebP
///   when accepted, else the source's family (``sourceFamily(_:hasAlpha:)``).
///
/// Named: that format. GIF and WebP keep an animated source's frames; the others get its
/// first frame.
struct OutputChoice: Sendable, Hashable {
    /// The format the URL names; `nil` negotiates.
    var named: ImageFormat?
    var acceptsAVIF = false
    var acceptsWebP = false

    /// From the URL's format and the request's `Accept` (ignored when a format is named).
    init(named: ImageFormat?, accept: String?, coder: any ImageCoder) {
        self.named = named
        guard named == nil, let accept else { return }
        let types = accept.lowercased().split(separator: ",").compactMap { item -> Substring? in
            let parts = item.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters(in: .whitespaces), !type.isEmpty else { return nil }
            // "q=0" means "not acceptable".
            let refused = parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
            return refused ? nil : Substring(type)
        }
        acceptsAVIF = types.contains("image/avif") && coder.canEncode(to: .avif)
        acceptsWebP = types.contains("image/webp") && coder.canEncode(to: .webp)
    }

    /// Whether the response varies with `Accept`.
    var isNegotiated: Bool { named == nil }

    /// The part of the result's cache key this choice contributes: the named format, or
    /// what the client accepts (so two browsers that accept the same share results).
    var cacheKey: String {
        if let named { return named.rawValue }
        return "auto" + (acceptsAVIF ? "+avif" : "") + (acceptsWebP ? "+webp" : "")
    }

    /// The output format, and whether the output is animated, for a source of `format`
    /// with `frameCount` frames.
    func resolve(source format: ImageFormat, frameCount: Int, hasAlpha: @autoclosure () -> Bool) -> (ImageFormat, animated: Bool) {
        let animated = frameCount > 1
        if let named {
            return (named, animated && AnimatedImage.encodableFormats.contains(named))
        }
        if animated { return (acceptsWebP ? .webp : .gif, true) }
        if acceptsAVIF { return (.avif, false) }
        if acceptsWebP { return (.webp, false) }
        return (Self.sourceFamily(format, hasAlpha: hasAlpha()), false)
    }

    /// The output for a still source when the client accepts neither AVIF nor WebP:
    /// JPEG stays JPEG, GIF stays GIF, PNG stays PNG, anything else becomes PNG when it
    /// has transparency and JPEG when it has none.
    static func sourceFamily(_ format: ImageFormat, hasAlpha: Bool) -> ImageFormat {
        switch format {
        case .jpeg: .jpeg
        case .gif: .gif
        case .png, .apng: .png
        default: hasAlpha ? .png : .jpeg
        }
    }
}
