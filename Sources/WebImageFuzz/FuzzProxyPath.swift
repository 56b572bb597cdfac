import Foundation
import WebImageCodecs
import WebImageServer

/// The `proxypath` target: the proxy's URL language on hostile input. The input is
/// `path \0 presets` (presets one per line); its first byte also picks the language's
/// variant (separator, presets-only, base64 file names, security options). The presets
/// and the path are parsed, the signature checked, and the geometry planned for a few
/// source sizes: every answer must be a value or a ``ProxyError``, never a trap.
enum FuzzProxyPath {
    static let signer = URLSigner(pairs: [URLSigner.KeyPair.random()], signatureSize: 8)

    static func run(_ data: Data) {
        let selector = data.first ?? 0
        let parts = data.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(decoding: parts.first ?? Data(), as: UTF8.self)
        var language = ProxyLanguage()
        if selector & 1 != 0 { language.separator = "," }
        if selector & 2 != 0 { language.onlyPresets = true }
        if selector & 4 != 0 { language.base64URLIncludesFilename = true }
        if selector & 8 != 0 { language.allowsSecurityOptions = true }
        if selector & 16 != 0 { language.baseURL = "http://base.example/" }
        if parts.count > 1 {
            let entries = String(decoding: parts[1], as: UTF8.self).components(separatedBy: "\n")
            if let presets = try? Presets(entries: entries, separator: language.separator) { language.presets = presets }
        }
        _ = try? language.validate()
        _ = signer.isValid(signature: String(path.prefix(64)), for: path)
        guard let url = try? ProxyURL.parse(path, language: language) else { return }
        for size in [PixelSize(width: 1, height: 1), PixelSize(width: 4032, height: 3024), PixelSize(width: 65_535, height: 3)] {
            _ = ProxyGeometry.outputSize(source: size, options: url.options)
        }
    }
}
