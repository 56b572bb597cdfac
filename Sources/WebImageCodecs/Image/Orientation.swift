/// EXIF orientation (TIFF tag 274): how stored pixels must be turned to display upright.
///
/// Raw values are the EXIF values 1–8. Decoders apply it to the pixels unless
/// ``ImageDecodeOptions/applyOrientation`` is off, and record it in
/// ``DecodedImage/orientation`` either way.
public enum Orientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to display.
    case right = 6
    /// 7: mirrored along the anti-diagonal (transversed).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case left = 8

    /// Whether displaying swaps width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }
}
