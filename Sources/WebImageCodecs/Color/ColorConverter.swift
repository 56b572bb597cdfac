import CLCMS2

/// Converts decoded RGBA8 pixels to sRGB, the colour management every decoder shares.
///
/// The entry point for decoders: after decoding (and after any resampling, which is cheaper
/// on fewer pixels) call ``convertToSRGB(_:from:options:)`` with what the file said about its
/// colours; JPEG CMYK goes through ``convertCMYK(_:profile:isInverted:options:)`` instead.
///
/// ```swift
/// var pixels = …                                   // RGBA8 as stored in the file
/// ColorConverter.convertToSRGB(&pixels, from: .iccProfile(icc), options: options)
/// ```
///
/// - A profile or code point that cannot be used (it does not parse, is of the wrong colour
///   space, or describes HDR, unsupported here) is ignored: the image decodes as stored
///   rather than failing, as browsers do.
/// - sRGB-like sources cost a cache lookup and nothing else: each new profile is tried on
///   a grid of colours once, and one that moves no channel by more than 1/255 is
///   remembered as needing no conversion.
/// - Transforms are built by lcms2 once per profile and shared through
///   ``ColorTransformCache``; conversions run on the calling thread (a decode thread).
enum ColorConverter {
    /// Converts `pixels` (RGBA, alpha untouched) from `source` to sRGB in place, unless
    /// `source` is `nil` (untagged: already sRGB) or `options` ask to keep stored samples.
    ///
    /// Gray ICC profiles apply to gray pixels expanded to RGB (R = G = B), as decoders
    /// deliver them. Runs on the caller's thread; blocking.
    static func convertToSRGB(_ pixels: inout PixelBuffer, from source: ColorSource?, options: ImageDecodeOptions) {
        guard let source, options.colorManagement == .convertToSRGB, !pixels.bytes.isEmpty else { return }
        switch ColorTransformCache.shared.conversion(for: source, input: .rgba) {
        case .none:
            return
        case .grayTable(let table):
            pixels.withUnsafeMutableBytes { p in
                table.withUnsafeBufferPointer { t in
                    var i = 0
                    while i < p.count {
                        let g = Int(p[i]) * 3
                        p[i] = t[g]; p[i + 1] = t[g + 1]; p[i + 2] = t[g + 2]
                        i += 4
                    }
                }
            }
        case .matrix(let conversion):
            pixels.withUnsafeMutableBytes { conversion.apply($0) }
        case .transform(let transform):
            let source = pixels
            pixels = PixelBuffer(width: source.width, height: source.height) { out in
                source.bytes.withUnsafeBytes { input in
                    guard let from = input.baseAddress, let to = out.baseAddress else { return }
                    transform.run(from, to, count: source.width * source.height)
                }
            }
        }
    }

    /// Whether ``convertToSRGB(_:from:options:)`` would change RGBA pixels from `source`:
    /// `false` for untagged, sRGB-like and unusable sources, or when `options` keep stored
    /// samples. Lets a decoder that never makes RGB (a planar JPEG transcode) know it may skip it.
    static func changesPixels(from source: ColorSource?, options: ImageDecodeOptions) -> Bool {
        guard let source, options.colorManagement == .convertToSRGB else { return false }
        if case .none = ColorTransformCache.shared.conversion(for: source, input: .rgba) { return false }
        return true
    }

    /// Converts CMYK `rows` of `pixels` (4 bytes per pixel as libjpeg writes them) to
    /// opaque sRGB RGBA with a CMYK ICC `profile`. `isInverted` is Adobe's inverted CMYK.
    ///
    /// - Returns: `false`, leaving the pixels untouched, when the profile is unusable or
    ///   `options` keep stored samples: the caller then converts without a profile.
    static func convertCMYK(_ pixels: inout PixelBuffer, rows: Range<Int>, profile: [UInt8], isInverted: Bool,
                            options: ImageDecodeOptions) -> Bool {
        guard options.colorManagement == .convertToSRGB else { return false }
        guard case .transform(let transform) = ColorTransformCache.shared.conversion(
            for: .iccProfile(profile), input: .cmyk(isInverted: isInverted)) else { return false }
        let width = pixels.width, rows = rows.clamped(to: 0..<pixels.height)
        var rgb = [UInt8](repeating: 0, count: width * 3)
        pixels.withUnsafeMutableBytes { p in
            rgb.withUnsafeMutableBytes { scratch in
                guard let base = p.baseAddress, let out = scratch.baseAddress else { return }
                for y in rows {
                    let row = base + y * width * 4
                    transform.run(row, out, count: width)
                    for x in 0..<width {
                        row[x * 4] = scratch[x * 3]
                        row[x * 4 + 1] = scratch[x * 3 + 1]
                        row[x * 4 + 2] = scratch[x * 3 + 2]
                        row[x * 4 + 3] = 255
                    }
                }
            }
        }
        return true
    }
}
