import CPNGShim

/// The colour information of a PNG: `cICP`, `iCCP`, `sRGB`, `gAMA` and `cHRM`.
///
/// Precedence follows the PNG specification (third edition) and browsers: `cICP`, then
/// `iCCP`, then `sRGB` (no conversion), then `gAMA` with `cHRM` when present; `cHRM`
/// without `gAMA` is ignored. Only chunks before the first `IDAT` count. A malformed
/// chunk, or an `iCCP` that does not inflate, is skipped: the next source in the order
/// applies, as if the chunk were absent.
enum PNGColorChunks {
    static let iccp: UInt32 = 0x6943_4350
    static let srgb: UInt32 = 0x7352_4742
    static let gama: UInt32 = 0x6741_4D41
    static let chrm: UInt32 = 0x6348_524D
    static let cicp: UInt32 = 0x6349_4350

    /// The colour source `chunks` of `p` declare, or `nil` for sRGB or untagged files.
    static func source(in p: UnsafeRawBufferPointer, chunks: [PNGChunk]) -> ColorSource? {
        var found: [UInt32: Range<Int>] = [:]
        for chunk in chunks {
            if chunk.type == PNGChunk.idat { break }
            if [iccp, srgb, gama, chrm, cicp].contains(chunk.type), found[chunk.type] == nil {
                found[chunk.type] = chunk.data
            }
        }
        guard !found.isEmpty else { return nil }
        if let range = found[cicp], range.count == 4 {
            let code = CICP(primaries: Int(p[range.lowerBound]), transfer: Int(p[range.lowerBound + 1]),
                            matrix: Int(p[range.lowerBound + 2]), isFullRange: p[range.lowerBound + 3] != 0)
            return code.isSRGB ? nil : .cicp(code)
        }
        if let range = found[iccp], let profile = iccProfile(UnsafeRawBufferPointer(rebasing: p[range])) {
            return .iccProfile(profile)
        }
        if found[srgb] != nil { return nil }
        guard let range = found[gama], range.count == 4 else { return nil }
        let gamma = Double(PNGChunk.readUInt32(p, at: range.lowerBound)) / 100_000
        guard gamma > 0 else { return nil }
        var chromaticities: ColorSource.Chromaticities?
        if let range = found[chrm], range.count == 32 {
            func point(_ i: Int) -> (x: Double, y: Double) {
                (Double(PNGChunk.readUInt32(p, at: range.lowerBound + i * 8)) / 100_000,
                 Double(PNGChunk.readUInt32(p, at: range.lowerBound + i * 8 + 4)) / 100_000)
            }
            chromaticities = .init(white: point(0), red: point(1), green: point(2), blue: point(3))
        }
        return .gamma(gamma, chromaticities: chromaticities)
    }

    /// The profile in an `iCCP` payload: a 1–79 byte name, a NUL, compression method 0
    /// and a zlib stream.
    static func iccProfile(_ payload: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let nul = payload.prefix(80).firstIndex(of: 0), nul >= 1,
              nul + 2 <= payload.count, payload[nul + 1] == 0 else { return nil }
        let stream = UnsafeRawBufferPointer(rebasing: payload[(nul + 2)...])
        var count = 0
        guard let start = stream.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let inflated = cpng_inflate(start, stream.count, ColorConversion.maxProfileBytes, &count)
        else { return nil }
        defer { cpng_free(inflated) }
        return Array(UnsafeBufferPointer(start: inflated, count: count))
    }
}
