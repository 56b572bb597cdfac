/// A size in whole pixels, used for thumbnails and limits.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Number of pixels, saturating instead of overflowing.
    public var pixelCount: Int {
        let (n, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : n
    }

    /// `"WxH"`, the form the command line and cache keys use.
    public var description: String { "\(width)x\(height)" }

    /// Parses `"WxH"` (for example `"400x300"`); `nil` unless both sides are positive integers.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            return nil
        }
        self.init(width: w, height: h)
    }
}
