import CLCMS2

/// One lcms2 transform from a source colour space to sRGB.
///
/// Built once per profile and kept in ``ColorTransformCache``; in-flight decodes keep it
/// alive by reference, and the handle is freed when the last one lets go.
// lcms2 allows cmsDoTransform on one transform from several threads at once (created with
// cmsFLAGS_NOCACHE, no shared 1-pixel cache).
final class ColorTransform: @unchecked Sendable {  // the handle is immutable and lcms2 transforms are thread-safe
    /// The layout of the samples the transform reads.
    enum Input: Hashable, Sendable {
        /// RGBA, alpha copied through.
        case rgba
        /// CMYK as libjpeg writes it (4 bytes); `isInverted` for Adobe's inverted kind.
        case cmyk(isInverted: Bool)
    }

    let input: Input
    private let handle: cmsHTRANSFORM

    /// A transform from `profile` (opened by the caller, who also closes it) to sRGB;
    /// `nil` when lcms2 cannot build one (a profile of the wrong colour space, a broken tag).
    init?(from profile: cmsHPROFILE, input: Input) {
        guard let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        let handle: cmsHTRANSFORM?
        switch input {
        case .rgba:
            handle = cmsCreateTransform(profile, LCMSFormat.rgba8, srgb, LCMSFormat.rgba8,
                                        LCMSFormat.intent, LCMSFormat.copyAlpha | LCMSFormat.noCache)
        case .cmyk(let inverted):
            handle = cmsCreateTransform(profile, inverted ? LCMSFormat.invertedCMYK8 : LCMSFormat.cmyk8,
                                        srgb, LCMSFormat.rgb8, LCMSFormat.intent, LCMSFormat.noCache)
        }
        guard let handle else { return nil }
        self.handle = handle
        self.input = input
    }

    deinit { cmsDeleteTransform(handle) }

    /// Transforms `count` pixels from `source` to `destination` (layouts per ``input``:
    /// RGBA to RGBA, or CMYK to packed RGB). The buffers must not overlap.
    func run(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int) {
        cmsDoTransform(handle, source, destination, UInt32(count))
    }
}

/// lcms2's pixel-format words and flags, spelled out because its `TYPE_*` macros are
/// expressions Swift does not import.
enum LCMSFormat {
    private static func format(space: Int32, channels: UInt32, extra: UInt32 = 0, flavor: UInt32 = 0) -> UInt32 {
        let layout: UInt32 = flavor << 13 | extra << 7 | channels << 3 | 1  // 1 byte per sample
        return UInt32(space) << 16 | layout
    }

    static let rgba8 = format(space: PT_RGB, channels: 3, extra: 1)
    static let rgb8 = format(space: PT_RGB, channels: 3)
    static let gray8 = format(space: PT_GRAY, channels: 1)
    static let cmyk8 = format(space: PT_CMYK, channels: 4)
    /// CMYK with 0 meaning full ink (Adobe's inverted JPEG CMYK).
    static let invertedCMYK8 = format(space: PT_CMYK, channels: 4, flavor: 1)
    /// Relative colorimetric, without black-point compensation: what Chromium's decoders
    /// match (measured on the SWOP CMYK JPEG of the corpus; matrix/TRC profiles give the
    /// same result under every intent).
    static let intent = UInt32(INTENT_RELATIVE_COLORIMETRIC)
    static let copyAlpha = UInt32(cmsFLAGS_COPY_ALPHA)
    static let noCache = UInt32(cmsFLAGS_NOCACHE)
}
