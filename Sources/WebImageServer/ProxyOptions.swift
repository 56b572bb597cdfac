import WebImageCodecs

/// What one proxy URL asks for: imgproxy's processing options that `webimage serve`
/// supports (see DESIGN.md, "serve"). A value; parsing is ``ProxyPath``'s job.
public struct ProxyOptions: Sendable, Hashable {
    /// How the image meets the target box (imgproxy's `rs:` resizing type).
    public enum ResizeMode: String, Sendable, Hashable, CaseIterable {
        /// Scale down to fit inside the box, keeping the aspect ratio; never enlarges.
        case fit
        /// Scale to cover the box and crop the overflow at the gravity; never enlarges,
        /// so a small source gives a crop of at most its own size.
        case fill
        /// As `fill`, but a source smaller than the box is cropped to the box's aspect
        /// ratio, so the result always has the requested proportions.
        case fillDown = "fill-down"
    }

    /// Where a `fill` crop is anchored (imgproxy's `g:`).
    public enum Gravity: String, Sendable, Hashable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        /// imgproxy's "smart" gravity; here it keeps the centre (documented in openapi.yaml).
        case smart = "sm"
    }

    public var mode: ResizeMode = .fit
    /// Target width in CSS pixels before `dpr`; 0 means "from the height and the aspect ratio".
    public var width = 0
    /// Target height in CSS pixels before `dpr`; 0 means "from the width and the aspect ratio".
    public var height = 0
    /// Lossy quality 1–100; `nil` is the server's default (80).
    public var quality: Int?
    /// The output format asked for by `f:` or the extension; `nil` negotiates it.
    public var format: ImageFormat?
    /// Gaussian blur sigma in output pixels; 0 is none.
    public var blur: Double = 0
    /// Device pixel ratio 1–4: the target box is multiplied by it.
    public var dpr: Double = 1
    public var gravity: Gravity = .center

    public init() {}

    /// The largest `W` or `H` accepted (imgproxy's own limit is similar): keeps every
    /// later product of sizes far from overflow.
    public static let maxSide = 16_384
    /// The largest blur sigma accepted.
    public static let maxBlur = 100.0
    /// The output formats `f:` and the extension may name.
    public static let formatNames: [String: ImageFormat] = [
        "jpeg": .jpeg, "jpg": .jpeg, "png": .png, "webp": .webp, "avif": .avif, "gif": .gif,
    ]

    /// The target box in output pixels (`dpr` applied, each side at most ``maxSide``);
    /// a side of 0 is free.
    public var pixelBox: PixelSize {
        func side(_ v: Int) -> Int { min(Self.maxSide, Int((Double(v) * dpr).rounded())) }
        return PixelSize(width: side(width), height: side(height))
    }
}
