/// The largest image size an ISO BMFF file (AVIF, HEIC/HEIF) declares in its `ispe`
/// (image spatial extents) properties, read without any library.
///
/// libavif and libheif refuse a declared size over their own compiled-in limits as a
/// parse error, indistinguishable from a corrupt file; reading the sizes first lets the
/// coders report such a header as ``WebImageError/Code/imageTooLarge`` under
/// ``ImageDecodeOptions/maxPixelCount``, before either library allocates anything. Only
/// the `meta` box and the containers on the way to `ispe` (`iprp`, `ipco`) and to the item
/// entries (`iinf`, `infe`) are walked, every length bounds-checked: hostile data gives
/// `nil`, never a trap.
enum ISOBMFFImageSize {
    /// The `ispe` with the most pixels inside the top-level `meta` box, or `nil` when there is none.
    static func largestDeclared(in p: UnsafeRawBufferPointer) -> PixelSize? {
        var largest: PixelSize?
        walk(p, range: 0..<p.count, depth: 0) { found in
            if case .size(let size) = found, size.pixelCount > (largest?.pixelCount ?? -1) { largest = size }
        }
        return largest
    }

    /// Whether an item entry (`infe`) of the top-level `meta` box has the type `fourCC`
    /// (such as `av01`, an AV1-coded image).
    static func containsItem(ofType fourCC: String, in p: UnsafeRawBufferPointer) -> Bool {
        let wanted = fourCC.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var seen = false
        walk(p, range: 0..<p.count, depth: 0) { found in
            if case .itemType(let type) = found, type == wanted { seen = true }
        }
        return seen
    }

    private enum Found {
        case size(PixelSize)
        case itemType(UInt32)
    }

    /// Visits the boxes in `range`, descending into the containers that lead to `ispe`.
    private static func walk(_ p: UnsafeRawBufferPointer, range: Range<Int>, depth: Int, found: (Found) -> Void) {
        guard depth < 4 else { return }
        for box in ISOBMFFBox.boxes(p, in: range) {
            let body = box.body
            switch box.type {
            case ISOBMFFBox.fourCC("meta") where depth == 0:  // a full box (4 bytes version/flags)
                walk(p, range: min(body.lowerBound + 4, body.upperBound)..<body.upperBound, depth: depth + 1, found: found)
            case ISOBMFFBox.fourCC("iprp"), ISOBMFFBox.fourCC("ipco"):
                if depth > 0 { walk(p, range: body, depth: depth + 1, found: found) }
            case ISOBMFFBox.fourCC("ispe"):  // version/flags, width, height
                if body.count >= 12 {
                    found(.size(PixelSize(width: Int(ISOBMFFBox.u32(p, body.lowerBound + 4)),
                                          height: Int(ISOBMFFBox.u32(p, body.lowerBound + 8)))))
                }
            case ISOBMFFBox.fourCC("iinf") where depth == 1:  // version/flags, entry count (16 or 32 bits)
                if body.count >= 4 {
                    let start = body.lowerBound + (p[body.lowerBound] == 0 ? 6 : 8)
                    walk(p, range: min(start, body.upperBound)..<body.upperBound, depth: depth + 1, found: found)
                }
            case ISOBMFFBox.fourCC("infe") where depth == 2:  // v2/v3: version/flags, item ID, protection, type
                if body.count >= 4, p[body.lowerBound] >= 2 {
                    let typeOffset = body.lowerBound + 4 + (p[body.lowerBound] == 2 ? 2 : 4) + 2
                    if typeOffset + 4 <= body.upperBound { found(.itemType(ISOBMFFBox.u32(p, typeOffset))) }
                }
            default:
                break
            }
        }
    }
}
