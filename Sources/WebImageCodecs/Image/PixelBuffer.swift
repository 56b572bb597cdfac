import CResample

/// A bitmap of 8-bit RGBA pixels, non-premultiplied, rows tightly packed.
///
/// `PixelBuffer` is a value: copies share storage until one of them is written
/// (copy-on-write through `[UInt8]`). Byte `4 * (y * width + x)` is the red
/// channel of pixel (x, y); green, blue and alpha follow.
public struct PixelBuffer: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel, top row first. Read-only from
    /// outside the codecs, so its count always matches the size; change pixel values
    /// with ``withUnsafeMutableBytes(_:)``.
    public internal(set) var bytes: [UInt8]

    /// Bytes per row; rows are tightly packed.
    public var bytesPerRow: Int { width * 4 }

    /// Creates a buffer from existing RGBA bytes.
    ///
    /// Returns `nil` when `bytes.count` is not `width * height * 4` or a size is negative.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width >= 0, height >= 0,
              let count = PixelBuffer.byteCount(width: width, height: height),
              bytes.count == count else { return nil }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// Creates a fully transparent buffer (all bytes zero).
    public init(width: Int, height: Int) {
        let count = PixelBuffer.byteCount(width: max(0, width), height: max(0, height)) ?? 0
        self.width = count == 0 ? 0 : width
        self.height = count == 0 ? 0 : height
        self.bytes = [UInt8](repeating: 0, count: count)
    }

    /// Creates a buffer whose bytes are written by `initializer` without zero-filling first.
    ///
    /// Decoders use this to decode straight into the final storage. The closure must
    /// initialize every byte of the buffer it is given.
    public init(
        width: Int,
        height: Int,
        unsafeUninitialized initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        let count = PixelBuffer.byteCount(width: max(0, width), height: max(0, height)) ?? 0
        self.width = count == 0 ? 0 : width
        self.height = count == 0 ? 0 : height
        guard count > 0 else {
            // Not the uninitialized-capacity initialiser: for 0 it writes the standard
            // library's shared empty-array storage, a data race between threads.
            try initializer(UnsafeMutableBufferPointer(start: nil, count: 0))
            self.bytes = []
            return
        }
        self.bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initializer(buffer)
            initialized = count
        }
    }

    /// `width * height * 4`, or `nil` when that overflows `Int`.
    public static func byteCount(width: Int, height: Int) -> Int? {
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (bytes, o2) = pixels.multipliedReportingOverflow(by: 4)
        return (o1 || o2) ? nil : bytes
    }

    /// Lets `body` change the pixel values in place (copying first when the storage is
    /// shared); the buffer's size cannot change. Runs on the caller's thread.
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeMutableBufferPointer { pointer in try body(pointer) }
    }

    /// Whether any pixel is not fully opaque. One SIMD pass that stops at the first
    /// translucent pixel (CResample), where a byte-by-byte loop took ~0.3 ms per megapixel.
    public var hasAlpha: Bool {
        bytes.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return false }
            return wi_rs_is_opaque(base, p.count / 4) == 0
        }
    }

    /// The RGBA value of pixel (x, y), or `nil` outside the buffer.
    public subscript(x: Int, y: Int) -> RGBA? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let i = (y * width + x) * 4
        return RGBA(r: bytes[i], g: bytes[i + 1], b: bytes[i + 2], a: bytes[i + 3])
    }
}

/// One non-premultiplied 8-bit RGBA pixel.
public struct RGBA: Sendable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }
}
