import WebImage

/// img2dataset's `upscale_interpolation` and `downscale_interpolation` as this build runs
/// them: the filter of the resize that follows any shrink-on-load.
///
/// img2dataset decodes with OpenCV and resizes with `cv2.resize(…, interpolation=…)`.
/// `area`, `nearest` and `linear`/`bilinear` decode the whole image, as OpenCV does, and
/// resize it as OpenCV's `INTER_AREA`, `INTER_NEAREST` and `INTER_LINEAR` do (a JPEG shrunk
/// while decoding, then area-averaged, scored only 34 dB against OpenCV's area on a
/// photo, so no shrink-on-load there). Where we differ: `cubic`, `bicubic`, `lanczos` and
/// `lanczos4` (and no flag) are our Lanczos3 thumbnail path (shrink-on-load, then Lanczos3,
/// which averages when shrinking, where OpenCV's cubic and Lanczos4 sample and alias).
enum SampleInterpolation: String, Sendable, CaseIterable {
    /// Lanczos3 after shrink-on-load, the codecs' thumbnail path (the default here).
    case lanczos3
    /// OpenCV's `INTER_AREA` on the whole image: area averaging when shrinking, bilinear
    /// when enlarging.
    case area
    /// OpenCV's `INTER_LINEAR` on the whole image.
    case bilinear
    /// OpenCV's `INTER_NEAREST` on the whole image.
    case nearest

    /// The interpolation for one of OpenCV's names img2dataset accepts (`_INTER_STR_TO_CV2`).
    init(openCVName name: String) {
        switch name.lowercased() {
        case "area": self = .area
        case "linear", "bilinear": self = .bilinear
        case "nearest": self = .nearest
        default: self = .lanczos3
        }
    }

    /// How `--print-plan` and the notes name it.
    var displayName: String {
        switch self {
        case .lanczos3: "Lanczos3"
        case .area: "area averaging (bilinear when enlarging)"
        case .bilinear: "bilinear (OpenCV INTER_LINEAR)"
        case .nearest: "nearest (OpenCV INTER_NEAREST)"
        }
    }

    /// Whether the decoder may shrink the image before this filter runs.
    var keepsShrinkOnLoad: Bool { self == .lanczos3 }

    /// `pixels` resized to `width` × `height` with this filter. Blocks: run it on the decode queue.
    func resize(_ pixels: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        switch self {
        case .lanczos3: pixels.resampled(width: width, height: height, filter: .lanczos3)
        case .area: pixels.resampled(width: width, height: height, filter: .box)
        case .nearest: Self.nearest(pixels, width: width, height: height)
        case .bilinear: Self.bilinear(pixels, width: width, height: height)
        }
    }

    /// OpenCV's `resizeNN`: output pixel x takes source pixel `floor(x · src/dst)`.
    static func nearest(_ pixels: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let sw = pixels.width, sh = pixels.height
        let columns = (0..<width).map { min(Int((Double($0) * Double(sw) / Double(width)).rounded(.down)), sw - 1) }
        return pixels.bytes.withUnsafeBufferPointer { source in
            PixelBuffer(width: width, height: height) { dst in
                guard let from = source.baseAddress, let to = dst.baseAddress else { return }
                let words = UnsafeRawPointer(from).bindMemory(to: UInt32.self, capacity: sw * sh)
                let out = UnsafeMutableRawPointer(to).bindMemory(to: UInt32.self, capacity: width * height)
                for y in 0..<height {
                    let sy = min(Int((Double(y) * Double(sh) / Double(height)).rounded(.down)), sh - 1)
                    let row = words + sy * sw, line = out + y * width
                    for x in 0..<width { line[x] = row[columns[x]] }
                }
            }
        }
    }

    /// One axis of OpenCV's `INTER_LINEAR`: for each output position, the first source
    /// index and its weight out of 2048 (`INTER_RESIZE_COEF_SCALE`), centres aligned
    /// (`(d + 0.5) · scale − 0.5`) and clamped at the edges as OpenCV clamps them.
    static func linearTaps(source: Int, destination: Int) -> [(index: Int, weight: Int)] {
        let scale = Double(source) / Double(destination)
        return (0..<destination).map { d in
            var f = (Double(d) + 0.5) * scale - 0.5
            var s = Int(f.rounded(.down))
            f -= Double(s)
            if s < 0 { (s, f) = (0, 0) }
            if s >= source - 1 { (s, f) = (source - 1, 0) }
            return (s, Int((Float(1 - f) * 2048).rounded()))
        }
    }

    /// OpenCV's `INTER_LINEAR` for 8-bit pixels: two taps per axis in fixed point, rows
    /// first, then columns, rounded once at the end.
    static func bilinear(_ pixels: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let sw = pixels.width
        let xs = linearTaps(source: sw, destination: width), ys = linearTaps(source: pixels.height, destination: height)
        return pixels.bytes.withUnsafeBufferPointer { source in
            PixelBuffer(width: width, height: height) { dst in
                guard let from = source.baseAddress, let to = dst.baseAddress else { return }
                // One horizontally resized source row, in units of 1/2048.
                func row(_ sy: Int) -> [Int] {
                    var out = [Int](repeating: 0, count: width * 4)
                    let line = from + sy * sw * 4
                    for (x, tap) in xs.enumerated() {
                        let next = min(tap.index + 1, sw - 1)
                        for c in 0..<4 {
                            out[x * 4 + c] = Int(line[tap.index * 4 + c]) * tap.weight + Int(line[next * 4 + c]) * (2048 - tap.weight)
                        }
                    }
                    return out
                }
                for (y, tap) in ys.enumerated() {
                    let top = row(tap.index), bottom = row(min(tap.index + 1, pixels.height - 1))
                    let line = to + y * width * 4
                    for i in 0..<(width * 4) {
                        let value = (top[i] * tap.weight + bottom[i] * (2048 - tap.weight) + (1 << 21)) >> 22
                        line[i] = UInt8(clamping: value)
                    }
                }
            }
        }
    }
}
