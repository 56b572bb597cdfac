/// `--resize-mode`, img2dataset's five modes (its README, "resize_mode").
enum ResizeMode: String, Sendable, CaseIterable {
    /// Keep the size.
    case no
    /// The longer side becomes the size, then pad to a square with the border colour.
    case border
    /// The shorter side becomes the size.
    case keepRatio = "keep_ratio"
    /// The longer side becomes the size.
    case keepRatioLargest = "keep_ratio_largest"
    /// The shorter side becomes the size, then the centre square is cut out.
    case centerCrop = "center_crop"
}

/// What img2dataset does to an image of a given size: the resize, then the crop or the
/// padding. Pure arithmetic, the same as img2dataset 1.47's resizer:
///
/// - keep_ratio and center_crop scale by `S / min(w, h)`; border and keep_ratio_largest
///   by `S / max(w, h)`. Each side is `round(side × scale)` with Python's `round` (ties
///   to even: 2.5 → 2, 3.5 → 4), at least 1.
/// - With `--resize-only-if-bigger`, an image whose deciding side (the shorter one for
///   keep_ratio and center_crop, the longer one otherwise) is not larger than S is left
///   as it is: no resize, no crop, no padding.
/// - center_crop cuts `S × S` at `((w' − S) / 2, (h' − S) / 2)`, rounded down.
/// - border pads to `S × S`, the smaller half of the padding on the top and left side
///   (so an odd pixel goes to the bottom or right).
struct ResizePlan: Sendable, Equatable {
    /// The size to resample to, or `nil` to keep the decoded size.
    var resize: (width: Int, height: Int)?
    /// The square to cut out of the resampled image (center_crop).
    var crop: (x: Int, y: Int, side: Int)?
    /// The padding to add (border): top, bottom, left, right.
    var padding: (top: Int, bottom: Int, left: Int, right: Int)?
    /// Whether the resize branch ran (then the image is always encoded again).
    var isResized: Bool

    static func == (a: ResizePlan, b: ResizePlan) -> Bool {
        a.resize?.width == b.resize?.width && a.resize?.height == b.resize?.height
            && a.crop?.x == b.crop?.x && a.crop?.y == b.crop?.y && a.crop?.side == b.crop?.side
            && a.padding?.top == b.padding?.top && a.padding?.bottom == b.padding?.bottom
            && a.padding?.left == b.padding?.left && a.padding?.right == b.padding?.right
            && a.isResized == b.isResized
    }

    /// The plan for a `width × height` image in `mode` with size `size`.
    init(width: Int, height: Int, mode: ResizeMode, size: Int, onlyIfBigger: Bool) {
        resize = nil
        crop = nil
        padding = nil
        isResized = false
        let usesShorter: Bool
        switch mode {
        case .no: return
        case .keepRatio, .centerCrop: usesShorter = true
        case .border, .keepRatioLargest: usesShorter = false
        }
        let side = usesShorter ? min(width, height) : max(width, height)
        guard !onlyIfBigger || side > size, side > 0 else { return }
        let scale = Double(size) / Double(side)
        let w = Self.pythonRound(Double(width) * scale)
        let h = Self.pythonRound(Double(height) * scale)
        resize = (w, h)
        isResized = true
        switch mode {
        case .centerCrop:
            crop = ((w - size).floorHalf, (h - size).floorHalf, size)
        case .border:
            let top = h < size ? (size - h) / 2 : 0
            let left = w < size ? (size - w) / 2 : 0
            padding = (top, h < size ? size - h - top : 0, left, w < size ? size - w - left : 0)
        default:
            break
        }
    }

    /// The size after the whole plan, for an image decoded at `width × height`.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        if let crop { return (crop.side, crop.side) }
        var size = resize ?? (width, height)
        if let padding {
            size.width += padding.left + padding.right
            size.height += padding.top + padding.bottom
        }
        return size
    }

    /// Python 3's `round(x)` to an integer (ties to even), at least 1, at most 1<<30.
    static func pythonRound(_ x: Double) -> Int {
        guard x.isFinite else { return 1 }
        return Int(min(max(x.rounded(.toNearestOrEven), 1), Double(1 << 30)))
    }
}

private extension Int {
    /// Python's `x // 2`: rounds toward minus infinity (a crop of an image smaller than S
    /// starts at a negative offset; the crop clamps it).
    var floorHalf: Int { self >= 0 ? self / 2 : -((-self + 1) / 2) }
}
