/// Where the samples of a decoded image are defined: what a file says about its colours.
///
/// Decoders build one from the file's metadata and pass it to
/// ``ColorConverter/convertToSRGB(_:from:options:)``. The cases follow the precedence
/// browsers use: an ICC profile wins over `cICP`, which wins over PNG `gAMA`/`cHRM`.
enum ColorSource: Sendable, Hashable {
    /// An embedded ICC profile (RGB, gray or, for ``ColorConverter/convertCMYK(_:profile:isInverted:options:)``,
    /// CMYK), as stored in the file: JPEG `APP2` chunks joined, PNG `iCCP` inflated.
    case iccProfile([UInt8])
    /// PNG `gAMA` (the file gamma, e.g. 0.45455) with optional `cHRM` chromaticities
    /// (sRGB's primaries and D65 white without them).
    case gamma(Double, chromaticities: Chromaticities?)
    /// Coding-independent code points (ITU-T H.273), as in PNG `cICP` and AVIF/HEIC `nclx`.
    case cicp(CICP)

    /// CIE xy chromaticities of a white point and three primaries (PNG `cHRM`).
    struct Chromaticities: Sendable, Hashable {
        var white: (x: Double, y: Double)
        var red: (x: Double, y: Double)
        var green: (x: Double, y: Double)
        var blue: (x: Double, y: Double)

        static func == (a: Self, b: Self) -> Bool { a.values == b.values }
        func hash(into hasher: inout Hasher) { hasher.combine(values) }
        private var values: [Double] { [white.x, white.y, red.x, red.y, green.x, green.y, blue.x, blue.y] }
    }
}
