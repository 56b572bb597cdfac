import WebImageCodecs

/// The options of one `/info` request: imgproxy Pro's info options
/// (docs/usage/getting_info.mdx) as ``WebImageCodecs/ImageInfo/Options``, plus what only the server
/// handles (the `crop` window, `cachebuster`, `expires`, presets).
public struct InfoOptions: Sendable, Hashable {
    /// What ``WebImageCodecs/ImageInfo`` computes; the defaults are imgproxy's.
    public var info = ImageInfo.Options()
    /// `crop:width:height:gravity`: report the window processing would cut.
    public var crop: ProcessingOptions.Crop?
    public var cachebuster: String?
    /// Unix time after which the URL answers 404.
    public var expires: Int64?
    /// Presets applied, in order.
    public var usedPresets: [String] = []

    public init() {}

    /// Whether the request needs a decoded thumbnail (statistics, or a smart crop).
    var needsPixels: Bool { info.needsPixels || crop?.gravity?.kind == .smart }
}
