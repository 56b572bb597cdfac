/// Client hints (`IMGPROXY_ENABLE_CLIENT_HINTS`, imgproxy's docs/usage/processing.mdx):
/// `Sec-CH-DPR`/`DPR` (0 < dpr ≤ 8) sets the default `dpr`, and `Sec-CH-Width`/`Width`
/// (device pixels, > 0) the default `width` in CSS pixels (`round(width / dpr)`), before
/// the `default` preset and the URL's options, which win.
struct ClientHints: Sendable, Hashable {
    var dpr: Double?
    var width: Int?

    init() {}

    init(dpr: String?, width: String?) {
        if let text = dpr?.trimmingCharacters(in: .whitespaces), let value = Double(text), value > 0, value <= 8 {
            self.dpr = value
        }
        if let text = width?.trimmingCharacters(in: .whitespaces), let value = Int(text), value > 0, value <= ProcessingOptions.maxSide {
            self.width = value
        }
    }

    /// The options the hints set.
    var defaults: ProcessingOptions {
        var options = ProcessingOptions()
        if let dpr { options.dpr = dpr }
        if let width { options.width = ProcessingPlan.round(Double(width) / (dpr ?? 1)) }
        return options
    }

    /// The part of the result's cache key the hints contribute.
    var cacheKey: String {
        guard dpr != nil || width != nil else { return "" }
        return "#hints:\(width ?? 0):\(dpr ?? 1)"
    }
}
