/// Hides the tracks of an AVIF image sequence that carry no pictures (audio, text, timed
/// metadata) from libavif, in the coder's private copy of the file.
///
/// libavif 0.11 (Debian 12) parses every track of the `moov` box and refuses the whole
/// file when one of them has no picture size, which is what an audio track's `tkhd`
/// declares: a valid sequence with a soundtrack fails as a parse error. libavif 1.x and
/// browsers skip such tracks. Renaming the box type of each `trak` whose handler is not
/// a picture (`pict`, `vide`) or an auxiliary picture such as alpha (`auxv`) to `free`
/// makes libavif 0.11 skip it the same way: the sizes and offsets of everything else are
/// unchanged. Every length is bounds-checked; hostile data is left as it is.
enum AVIFTrackFilter {
    /// Handlers of tracks an image sequence is made of.
    private static let pictureHandlers: Set<UInt32> = [fourCC("pict"), fourCC("vide"), fourCC("auxv")]

    /// Renames each top-level `moov/trak` box without a picture handler to `free`, in place.
    /// Returns how many tracks it hid.
    @discardableResult
    static func hideNonPictureTracks(in p: UnsafeMutableRawBufferPointer) -> Int {
        let bytes = UnsafeRawBufferPointer(p)
        var hidden = 0
        for moov in ISOBMFFBox.boxes(bytes, in: 0..<p.count) where moov.type == fourCC("moov") {
            for trak in ISOBMFFBox.boxes(bytes, in: moov.body) where trak.type == fourCC("trak") {
                guard let handler = handler(in: bytes, trak: trak.body), !pictureHandlers.contains(handler) else { continue }
                ISOBMFFBox.hide(boxAt: trak.range.lowerBound, in: p)
                hidden += 1
            }
        }
        return hidden
    }

    /// The handler type of a track: `mdia/hdlr`, whose body is version/flags, pre_defined,
    /// then the handler type.
    private static func handler(in p: UnsafeRawBufferPointer, trak: Range<Int>) -> UInt32? {
        for mdia in ISOBMFFBox.boxes(p, in: trak) where mdia.type == fourCC("mdia") {
            for hdlr in ISOBMFFBox.boxes(p, in: mdia.body) where hdlr.type == fourCC("hdlr") && hdlr.body.count >= 12 {
                return ISOBMFFBox.u32(p, hdlr.body.lowerBound + 8)
            }
        }
        return nil
    }

    private static func fourCC(_ s: StaticString) -> UInt32 { ISOBMFFBox.fourCC(s) }
}
