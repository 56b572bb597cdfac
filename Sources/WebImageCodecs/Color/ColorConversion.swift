import CLCMS2

/// What converting one source colour space to sRGB takes, worked out once per source.
enum ColorConversion: Sendable {
    /// Nothing: the source is sRGB within 1/255, or unusable (then pixels stay as stored).
    case none
    /// A gray profile: sRGB R, G, B for each gray level (768 bytes).
    case grayTable([UInt8])
    /// A matrix/TRC source: tables and a matrix, in place.
    case matrix(MatrixTRCConversion)
    /// A general lcms2 transform (lookup-table profiles).
    case transform(ColorTransform)

    /// ICC profiles over this size are ignored; real ones (CMYK LUTs included) are far smaller.
    static let maxProfileBytes = 4 << 20

    /// Builds the conversion for `source` read as `input`.
    static func make(for source: ColorSource, input: ColorTransform.Input) -> ColorConversion {
        guard let profile = openProfile(source) else { return .none }
        defer { cmsCloseProfile(profile) }
        let space = cmsGetColorSpace(profile)
        switch input {
        case .rgba where space == cmsSigRgbData:
            guard let transform = ColorTransform(from: profile, input: .rgba) else { return .none }
            if isIdentity(transform) { return .none }
            return MatrixTRCConversion(profile: profile).map { ColorConversion.matrix($0) } ?? .transform(transform)
        case .rgba where space == cmsSigGrayData:
            return grayTable(from: profile)
        case .cmyk where space == cmsSigCmykData:
            return ColorTransform(from: profile, input: input).map { .transform($0) } ?? .none
        default:
            return .none
        }
    }

    /// An lcms2 profile for `source` (the caller closes it), or `nil` when it cannot be made.
    private static func openProfile(_ source: ColorSource) -> cmsHPROFILE? {
        switch source {
        case .iccProfile(let bytes):
            guard bytes.count >= 128, bytes.count <= maxProfileBytes else { return nil }
            return bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
        case .gamma(let gamma, let chromaticities):
            // PNG stores the encoding exponent; the curve decodes with its inverse. Values
            // far outside any real display gamma are treated as missing, as libpng does.
            guard gamma.isFinite, gamma >= 0.01, gamma <= 100 else { return nil }
            return rgbProfile(chromaticities ?? CICP(primaries: 1, transfer: 13).chromaticities,
                              parameters: [1 / gamma, 1, 0, 0, 0])
        case .cicp(let cicp):
            guard !cicp.isSRGB, let parameters = cicp.transferParameters else { return nil }
            return rgbProfile(cicp.chromaticities, parameters: parameters)
        }
    }

    /// A matrix/TRC RGB profile from primaries and a type-4 parametric decoding curve.
    private static func rgbProfile(_ c: ColorSource.Chromaticities?, parameters: [Double]) -> cmsHPROFILE? {
        guard let c else { return nil }
        let values = [c.white.x, c.white.y, c.red.x, c.red.y, c.green.x, c.green.y, c.blue.x, c.blue.y]
        guard values.allSatisfy({ $0.isFinite && $0 > 0 && $0 <= 1 }) else { return nil }
        var white = cmsCIExyY(x: c.white.x, y: c.white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: c.red.x, y: c.red.y, Y: 1),
            Green: cmsCIExyY(x: c.green.x, y: c.green.y, Y: 1),
            Blue: cmsCIExyY(x: c.blue.x, y: c.blue.y, Y: 1))
        guard let curve = parameters.withUnsafeBufferPointer({ cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) })
        else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        return curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }
    }

    /// Whether `transform` moves no channel of a 9×9×9 grid of colours by more than 1.
    private static func isIdentity(_ transform: ColorTransform) -> Bool {
        let levels: [UInt8] = [0, 32, 64, 96, 128, 160, 192, 224, 255]
        var grid: [UInt8] = []
        grid.reserveCapacity(levels.count * levels.count * levels.count * 4)
        for r in levels { for g in levels { for b in levels { grid += [r, g, b, 255] } } }
        var out = [UInt8](repeating: 0, count: grid.count)
        grid.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in
                if let i = i.baseAddress, let o = o.baseAddress { transform.run(i, o, count: grid.count / 4) }
            }
        }
        return zip(grid, out).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }

    /// The sRGB colour of each gray level under a gray `profile`; `.none` when that is the
    /// identity or lcms2 cannot build the transform.
    private static func grayTable(from profile: cmsHPROFILE) -> ColorConversion {
        guard let srgb = cmsCreate_sRGBProfile() else { return .none }
        defer { cmsCloseProfile(srgb) }
        guard let handle = cmsCreateTransform(profile, LCMSFormat.gray8, srgb, LCMSFormat.rgb8,
                                              LCMSFormat.intent, LCMSFormat.noCache) else { return .none }
        defer { cmsDeleteTransform(handle) }
        let levels = (0...255).map { UInt8($0) }
        var table = [UInt8](repeating: 0, count: 256 * 3)
        table.withUnsafeMutableBytes { out in cmsDoTransform(handle, levels, out.baseAddress, 256) }
        let isIdentity = (0..<256).allSatisfy { level in
            (0..<3).allSatisfy { abs(Int(table[level * 3 + $0]) - level) <= 1 }
        }
        return isIdentity ? .none : .grayTable(table)
    }
}
