import Foundation
import WebImage
import WebImageCodecs

/// img2dataset's `--bbox_col` blurring (its `blurrer.py`, 1.47): each box `[x0, y0, x1, y1]`,
/// in fractions of the image's width and height, is grown by a tenth of the largest box
/// side on every side, and the image is blurred inside the boxes through a soft mask (the
/// box mask blurred by the same gaussian), so the blur fades out at the box edges.
///
/// As there: pixel coordinates are `int(fraction × size)` (truncated), the grown box is
/// clipped to `[0, size − 1]` and covers `[x0, x1) × [y0, y1)`; the kernel is `k =
/// max(3, 2·⌈0.1·d⌉ + 1)` (odd) for the largest box side `d`, with OpenCV's sigma for a
/// kernel of that size, `0.3·((k − 1)/2 − 1) + 0.8`; each channel becomes
/// `trunc(255 · (v·(1 − m) + b·m))` for the pixel `v`, the blurred pixel `b` and the
/// blurred mask `m` (all in 0…1). The boxes apply to the image after its resize and before
/// its crop or padding, as img2dataset applies them.
///
/// **Differs** in the gaussian: the project's blur (three box passes per axis, edges
/// repeated) stands in for OpenCV's exact kernel (edges reflected), so pixels near a box
/// edge differ by a few levels.
///
/// **Threads.** Runs on the caller's thread (``DecodeQueue`` in a job).
enum BoundingBoxBlurrer {
    /// `pixels` with `boxes` blurred; unchanged when there are no boxes.
    static func blur(_ pixels: PixelBuffer, boxes: [[Double]]) -> PixelBuffer {
        let (w, h) = (pixels.width, pixels.height)
        guard !boxes.isEmpty, w > 0, h > 0 else { return pixels }
        var mask = [Float](repeating: 0, count: w * h)
        var largest = 0
        for box in boxes where box.count >= 4 {
            var b = [Int(pythonInt: box[0] * Double(w)), Int(pythonInt: box[1] * Double(h)),
                     Int(pythonInt: box[2] * Double(w)), Int(pythonInt: box[3] * Double(h))]
            let side = max(b[2] - b[0], b[3] - b[1])
            largest = max(largest, side)
            let grow = 0.1 * Double(side)
            b = [Int(pythonInt: Double(b[0]) - grow), Int(pythonInt: Double(b[1]) - grow),
                 Int(pythonInt: Double(b[2]) + grow), Int(pythonInt: Double(b[3]) + grow)]
            let x0 = min(max(b[0], 0), w - 1), y0 = min(max(b[1], 0), h - 1)
            let x1 = min(max(b[2], 0), w - 1), y1 = min(max(b[3], 0), h - 1)
            guard x1 > x0, y1 > y0 else { continue }
            for y in y0..<y1 {
                for x in x0..<x1 { mask[y * w + x] = 1 }
            }
        }
        let sigma = 0.1 * Double(largest)
        var kernel = max(3, Int(2 * sigma.rounded(.up) + 1))
        if kernel % 2 == 0 { kernel += 1 }
        let cvSigma = 0.3 * (Double(kernel - 1) * 0.5 - 1) + 0.8

        // The mask goes through the same blur as the image, as a grey opaque picture.
        var maskPixels = PixelBuffer(width: w, height: h)
        maskPixels.withUnsafeMutableBytes { p in
            for i in 0..<(w * h) {
                let v: UInt8 = mask[i] > 0 ? 255 : 0
                p[i * 4] = v
                p[i * 4 + 1] = v
                p[i * 4 + 2] = v
                p[i * 4 + 3] = 255
            }
        }
        let softMask = maskPixels.blurred(radius: cvSigma).bytes
        let blurred = pixels.blurred(radius: cvSigma).bytes
        var out = pixels
        out.withUnsafeMutableBytes { p in
            for i in 0..<(w * h) {
                let m = Float(softMask[i * 4]) / 255
                guard m > 0 else { continue }
                for c in 0..<3 {
                    let v = Float(p[i * 4 + c]) / 255, b = Float(blurred[i * 4 + c]) / 255
                    p[i * 4 + c] = UInt8(max(0, min(255, (v * (1 - m) + b * m) * 255)))
                }
            }
        }
        return out
    }

    /// The boxes of a row's bbox value: a list of `[x0, y0, x1, y1]` lists of numbers (a
    /// JSON array, or its text as a CSV cell holds it); `nil` when it holds none (a null
    /// or empty cell leaves the image alone, as in img2dataset).
    static func boxes(_ value: JSONValue?) -> [[Double]]? {
        guard var value else { return nil }
        if case .string(let text) = value {
            guard let parsed = JSONValue(parsing: Data(text.utf8)) else { return nil }
            value = parsed
        }
        guard case .array(let items) = value else { return nil }
        return items.compactMap { item -> [Double]? in
            guard case .array(let numbers) = item else { return nil }
            let values = numbers.compactMap { n -> Double? in
                switch n {
                case .int(let i): Double(i)
                case .double(let d): d
                default: nil
                }
            }
            return values.count == 4 && values.allSatisfy(\.isFinite) ? values : nil
        }
    }
}

private extension Int {
    /// Python's `int(x)`: truncation toward zero, clamped so no value traps.
    init(pythonInt value: Double) {
        guard value.isFinite else {
            self = value > 0 ? Int(Int32.max) : (value < 0 ? Int(Int32.min) : 0)
            return
        }
        self = Int(Swift.max(Swift.min(value, 1e15), -1e15).rounded(.towardZero))
    }
}
