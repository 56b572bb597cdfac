extension PixelBuffer {
    /// Returns the pixels clipped to a rounded rectangle, with an optional border along its edge.
    ///
    /// `radius` is clamped to half the shorter side; corners not in `corners` stay square.
    /// Coverage is computed from each pixel centre's distance to the edge, so the curve
    /// is anti-aliased. The border is `borderWidth` pixels wide, inside the edge, drawn
    /// over the image. Only pixels within reach of the edge are touched.
    /// Runs on the caller's thread.
    public func roundedCorners(
        radius: Double, corners: ImageTransform.Corners,
        borderWidth: Double = 0, borderColor: RGBA = RGBA(r: 0, g: 0, b: 0, a: 0)
    ) -> PixelBuffer {
        guard width > 0, height > 0 else { return self }
        let half = Double(min(width, height)) / 2
        let shape = RoundedShape(
            width: Double(width), height: Double(height),
            radius: radius.isFinite ? min(max(radius, 0), half) : 0,
            corners: corners,
            border: borderWidth.isFinite ? min(max(borderWidth, 0), half) : 0,
            borderColor: SIMD4<Float>(Float(borderColor.r), Float(borderColor.g), Float(borderColor.b), Float(borderColor.a) / 255)
        )
        if (shape.radius == 0 || corners.isEmpty), shape.border == 0 { return self }
        // Pixels farther than this from every edge are neither cut nor bordered.
        let margin = min(Int((max(shape.radius, shape.border) + 1).rounded(.up)), max(width, height))
        var result = self
        let w = width, h = height
        result.withUnsafeMutableBytes { p in
            for y in 0..<h {
                if y < margin || y >= h - margin {
                    for x in 0..<w { shape.shade(p, x, y, w) }
                } else {
                    let left = min(margin, w)
                    for x in 0..<left { shape.shade(p, x, y, w) }
                    for x in max(w - margin, left)..<w { shape.shade(p, x, y, w) }
                }
            }
        }
        return result
    }
}

/// The rounded rectangle and border one ``WebImageCodecs/PixelBuffer/roundedCorners(radius:corners:borderWidth:borderColor:)`` call draws.
private struct RoundedShape {
    var width: Double
    var height: Double
    var radius: Double
    var corners: ImageTransform.Corners
    var border: Double
    /// Red, green, blue as 0…255 and alpha as 0…1.
    var borderColor: SIMD4<Float>

    /// Distance from the pixel centre (`px`, `py`) inwards to the shape's edge.
    @inline(__always)
    func insideDistance(_ px: Double, _ py: Double) -> Double {
        if radius > 0 {
            let left = px < radius, right = px > width - radius
            let top = py < radius, bottom = py > height - radius
            var centre: (Double, Double)?
            if top && left && corners.contains(.topLeft) { centre = (radius, radius) }
            else if top && right && corners.contains(.topRight) { centre = (width - radius, radius) }
            else if bottom && left && corners.contains(.bottomLeft) { centre = (radius, height - radius) }
            else if bottom && right && corners.contains(.bottomRight) { centre = (width - radius, height - radius) }
            if let (cx, cy) = centre {
                let dx = px - cx, dy = py - cy
                return radius - (dx * dx + dy * dy).squareRoot()
            }
        }
        return min(min(px, width - px), min(py, height - py))
    }

    /// Applies border and edge coverage to pixel (`x`, `y`) in place.
    @inline(__always)
    func shade(_ p: UnsafeMutableBufferPointer<UInt8>, _ x: Int, _ y: Int, _ w: Int) {
        let d = insideDistance(Double(x) + 0.5, Double(y) + 0.5)
        let coverage = Float(min(max(d + 0.5, 0), 1))
        let inBorder = border > 0 ? Float(min(max(border - d + 0.5, 0), 1)) : 0
        if coverage == 1 && inBorder == 0 { return }
        let i = (y * w + x) * 4
        if coverage == 0 {
            p[i] = 0; p[i + 1] = 0; p[i + 2] = 0; p[i + 3] = 0
            return
        }
        var rgb = SIMD4<Float>(Float(p[i]), Float(p[i + 1]), Float(p[i + 2]), 0)
        var alpha = Float(p[i + 3]) / 255
        let ba = inBorder * borderColor.w
        if ba > 0 {
            // Non-premultiplied "source over": the border painted on top of the image.
            let outAlpha = ba + alpha * (1 - ba)
            rgb = (borderColor * ba + rgb * (alpha * (1 - ba))) / outAlpha
            alpha = outAlpha
        }
        rgb = rgb.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
        p[i] = UInt8(rgb.x + 0.5)
        p[i + 1] = UInt8(rgb.y + 0.5)
        p[i + 2] = UInt8(rgb.z + 0.5)
        p[i + 3] = UInt8(min(alpha * coverage * 255 + 0.5, 255))
    }
}
