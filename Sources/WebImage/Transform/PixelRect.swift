/// A rectangle in whole pixels, origin at the top-left corner, y growing downwards.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge, in pixels.
    public var x: Int
    /// Top edge, in pixels.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle; values may reach outside an image and are clipped when used.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The part of this rectangle inside a `width` × `height` image, or `nil` when none is.
    public func clipped(toWidth imageWidth: Int, height imageHeight: Int) -> PixelRect? {
        guard width > 0, height > 0 else { return nil }
        let x0 = min(max(x, 0), imageWidth)
        let y0 = min(max(y, 0), imageHeight)
        // With a positive size only an upward overflow is possible: the end lies past the image.
        let (xEnd, xOverflow) = x.addingReportingOverflow(width)
        let (yEnd, yOverflow) = y.addingReportingOverflow(height)
        let x1 = xOverflow ? imageWidth : min(max(xEnd, 0), imageWidth)
        let y1 = yOverflow ? imageHeight : min(max(yEnd, 0), imageHeight)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `x,y,WxH`, the form transformer keys use.
    public var description: String { "\(x),\(y),\(width)x\(height)" }
}
