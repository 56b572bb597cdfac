/// Coding-independent code points (ITU-T H.273): the colour primaries, transfer
/// characteristics and matrix of PNG `cICP` and of AVIF/HEIC `nclx` boxes.
///
/// Only primaries and transfer matter after decoding: the matrix (YUV to RGB) is applied
/// by the codec. HDR transfers (PQ 16, HLG 18) need tone mapping, which WebImage does not
/// do: such pixels are kept as stored, like unknown code points.
struct CICP: Sendable, Hashable {
    /// `colour_primaries`: 1 BT.709/sRGB, 9 BT.2020, 11 DCI-P3, 12 Display P3, …
    var primaries: Int
    /// `transfer_characteristics`: 13 sRGB, 1/6/14/15 BT.709, 8 linear, 4/5 gamma 2.2/2.8, …
    var transfer: Int
    /// `matrix_coefficients`: 0 for RGB; informative only here.
    var matrix: Int = 0
    /// `video_full_range_flag`.
    var isFullRange: Bool = true

    /// Whether these code points describe sRGB (2 = unspecified counts as sRGB, as browsers do).
    var isSRGB: Bool {
        [1, 2].contains(primaries) && [2, 13].contains(transfer)
    }

    /// The primaries and white point, or `nil` for an unknown or unsupported value.
    var chromaticities: ColorSource.Chromaticities? {
        let d65 = (x: 0.3127, y: 0.3290), illuminantC = (x: 0.310, y: 0.316)
        switch primaries {
        case 1, 2: return .init(white: d65, red: (0.640, 0.330), green: (0.300, 0.600), blue: (0.150, 0.060))
        case 4: return .init(white: illuminantC, red: (0.67, 0.33), green: (0.21, 0.71), blue: (0.14, 0.08))
        case 5: return .init(white: d65, red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06))
        case 6, 7: return .init(white: d65, red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070))
        case 8: return .init(white: illuminantC, red: (0.681, 0.319), green: (0.243, 0.692), blue: (0.145, 0.049))
        case 9: return .init(white: d65, red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046))
        case 11: return .init(white: (0.314, 0.351), red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        case 12: return .init(white: d65, red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        case 22: return .init(white: d65, red: (0.630, 0.340), green: (0.295, 0.605), blue: (0.155, 0.077))
        default: return nil
        }
    }

    /// The decoding (EOTF-like) curve as lcms2 parametric type 4 parameters
    /// `[g, a, b, c, d]`: `Y = (aX + b)^g` for `X ≥ d`, else `Y = cX`. `nil` when unsupported.
    var transferParameters: [Double]? {
        switch transfer {
        case 2, 13: return [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        case 1, 6, 14, 15: return [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
        case 4: return [2.2, 1, 0, 0, 0]
        case 5: return [2.8, 1, 0, 0, 0]
        case 7: return [1 / 0.45, 1 / 1.1115, 0.1115 / 1.1115, 1 / 4, 0.0913]
        case 8: return [1, 1, 0, 0, 0]
        default: return nil
        }
    }
}
