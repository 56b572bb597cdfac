import Foundation
import WebImageCodecs

/// Chooses the output format when the URL names none, from the request's `Accept`:
/// AVIF when the client takes it and an AVIF encoder is installed, then WebP, else the
/// source's family (decided after decoding, see ``ImageRenderer/sourceFamilyFormat(_:)``).
enum FormatNegotiation {
    /// The format, or `nil` for "the source's family".
    static func format(accept: String?, coder: any ImageCoder) -> ImageFormat? {
        guard let accept else { return nil }
        let types = accept.lowercased().split(separator: ",").compactMap { item -> Substring? in
            let parts = item.split(separator: ";")
            guard let type = parts.first?.trimmingCharacters(in: .whitespaces), !type.isEmpty else { return nil }
            // "q=0" means "not acceptable".
            let refused = parts.dropFirst().contains { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "") == "q=0" }
            return refused ? nil : Substring(type)
        }
        if types.contains("image/avif"), coder.canEncode(to: .avif) { return .avif }
        if types.contains("image/webp"), coder.canEncode(to: .webp) { return .webp }
        return nil
    }
}
