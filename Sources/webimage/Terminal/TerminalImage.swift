import WebImage

/// Draws pixels as text in 24-bit colour: each character cell is an upper half block
/// `▀` whose foreground is the upper pixel and whose background is the lower one, so
/// one text row shows two pixel rows and a cell is (about) two square pixels.
///
/// Translucent pixels are composited over a grey checkerboard (as image viewers show
/// transparency) or over black. Every row ends with a colour reset and a newline.
struct TerminalImage {
    /// What shows through transparent pixels.
    enum Background: String, CaseIterable {
        case checker, black
    }

    /// The background behind translucent pixels. Default: a checkerboard.
    var background = Background.checker

    /// The widest drawing, in columns (one pixel each): `--width` and `COLUMNS` stop here.
    static let maxColumns = 4096
    /// The tallest drawing, in pixel rows (two per text row): a very tall image is drawn
    /// narrower rather than allocating rows without end.
    static let maxPixelRows = 8192

    /// The pixel size to draw an image of `size` at: `columns` wide (or the image's own
    /// width when narrower and `fitOnly` is set), keeping the aspect ratio.
    ///
    /// `columns` is clamped to 1…``maxColumns``; when the height would exceed
    /// ``maxPixelRows`` the drawing is narrowed to keep the aspect ratio. Never traps,
    /// whatever the sizes.
    static func drawSize(for size: PixelSize, columns: Int, fitOnly: Bool) -> PixelSize {
        guard size.width > 0, size.height > 0 else { return PixelSize(width: 0, height: 0) }
        let limit = min(max(1, columns), maxColumns)
        var width = fitOnly ? min(limit, size.width) : limit
        var height = (Double(size.height) * Double(width) / Double(size.width)).rounded()
        if height > Double(maxPixelRows) {
            // width is at most maxColumns, so the narrowed width converts safely.
            width = max(1, Int((Double(width) * Double(maxPixelRows) / height).rounded()))
            height = Double(maxPixelRows)
        }
        return PixelSize(width: width, height: max(1, Int(height)))
    }

    /// Number of text rows `pixelHeight` pixel rows take.
    static func rows(forPixelHeight pixelHeight: Int) -> Int { (pixelHeight + 1) / 2 }

    /// The text drawing `pixels` at their own size (resample first with
    /// `PixelBuffer.resampled(width:height:)`).
    func render(_ pixels: PixelBuffer) -> String {
        let (width, height) = (pixels.width, pixels.height)
        var out: [UInt8] = []
        // A cell is at most two 19-byte colour codes and 3 bytes of glyph.
        out.reserveCapacity(Self.rows(forPixelHeight: height) * (width * 41 + 8))
        pixels.bytes.withUnsafeBufferPointer { p in
            for y in stride(from: 0, to: height, by: 2) {
                var lastTop: (UInt8, UInt8, UInt8)?
                var lastBottom: (UInt8, UInt8, UInt8)?
                for x in 0..<width {
                    let top = composite(p, width: width, x: x, y: y)
                    if lastTop.map({ $0 != top }) ?? true {
                        Self.appendColor(&out, selector: 38, top)
                        lastTop = top
                    }
                    if y + 1 < height {
                        let bottom = composite(p, width: width, x: x, y: y + 1)
                        if lastBottom.map({ $0 != bottom }) ?? true {
                            Self.appendColor(&out, selector: 48, bottom)
                            lastBottom = bottom
                        }
                    } else if x == 0 {
                        // An odd last pixel row: the lower half keeps the terminal's own background.
                        out.append(contentsOf: Self.defaultBackground)
                    }
                    out.append(contentsOf: Self.upperHalfBlock)
                }
                out.append(contentsOf: Self.reset)
                out.append(UInt8(ascii: "\n"))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func composite(_ p: UnsafeBufferPointer<UInt8>, width: Int, x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 4
        let a = Int(p[i + 3])
        if a == 255 { return (p[i], p[i + 1], p[i + 2]) }
        let back: Int
        switch background {
        case .black: back = 0
        case .checker: back = ((x / 4) + (y / 4)) % 2 == 0 ? 0x99 : 0x66
        }
        func mix(_ c: UInt8) -> UInt8 { UInt8((Int(c) * a + back * (255 - a) + 127) / 255) }
        return (mix(p[i]), mix(p[i + 1]), mix(p[i + 2]))
    }

    private static let upperHalfBlock = Array("▀".utf8)
    private static let reset = Array("\u{1B}[0m".utf8)
    private static let defaultBackground = Array("\u{1B}[49m".utf8)

    /// Appends `ESC [ selector ; 2 ; r ; g ; b m` (38 foreground, 48 background).
    private static func appendColor(_ out: inout [UInt8], selector: Int, _ c: (UInt8, UInt8, UInt8)) {
        out.append(0x1B)
        out.append(UInt8(ascii: "["))
        appendNumber(&out, selector)
        out.append(contentsOf: [UInt8(ascii: ";"), UInt8(ascii: "2")])
        out.append(UInt8(ascii: ";"))
        appendNumber(&out, Int(c.0))
        out.append(UInt8(ascii: ";"))
        appendNumber(&out, Int(c.1))
        out.append(UInt8(ascii: ";"))
        appendNumber(&out, Int(c.2))
        out.append(UInt8(ascii: "m"))
    }

    private static func appendNumber(_ out: inout [UInt8], _ n: Int) {
        if n >= 100 { out.append(UInt8(ascii: "0") + UInt8(n / 100)) }
        if n >= 10 { out.append(UInt8(ascii: "0") + UInt8(n / 10 % 10)) }
        out.append(UInt8(ascii: "0") + UInt8(n % 10))
    }
}
