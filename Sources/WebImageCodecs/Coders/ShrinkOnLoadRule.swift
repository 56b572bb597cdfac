/// How far a JPEG decode shrinks on load — libjpeg's DCT scaling to 1/2, 1/4 or 1/8 — before
/// the Lanczos3 resample makes the exact thumbnail size.
///
/// The DCT-scaled decode is close to an n×n box average, cheaper the further it goes and
/// blurrier: a resample left with a factor 2 or more keeps the kernel in charge of the result.
public enum ShrinkOnLoadRule: String, Sendable, Hashable, CaseIterable {
    /// libvips' `thumbnail` rule, the default: the largest 1/n that still leaves the resample
    /// a factor 2 on both axes (n = 8 when the image is 16 or more times the target, 4 from
    /// 8, 2 from 4, else 1).
    case libvips
    /// imgproxy's rule: n from the integer part of the shrink (8 when it is at least 8, 4
    /// from 4, 2 from 2, else 1), one step further than ``libvips`` for most shrinks: less
    /// decode work, a little less detail; what imgproxy's own output is made with.
    case imgproxy

    /// The denominator n of the decode's 1/n scale for an image `shrink` times the target
    /// (the smaller of the two axes' factors).
    public func scaleDenominator(shrink: Double) -> Int {
        guard shrink.isFinite else { return 1 }
        switch self {
        case .libvips: return shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
        case .imgproxy: return shrink >= 8 ? 8 : shrink >= 4 ? 4 : shrink >= 2 ? 2 : 1
        }
    }
}
