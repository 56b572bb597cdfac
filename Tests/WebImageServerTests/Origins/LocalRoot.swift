import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WebImageCodecs

/// A local root for `local://` tests, in a fresh temporary directory:
///
/// ```
/// base/
///   outside/secret.png            never served
///   root/                         the local root
///     a.png                       32×32 gradient (R = 8x, G = 8y, B = 128)
///     sub/b.png                   the same image
///     link-in.png  -> a.png       a symlink inside the root
///     link-out.png -> base/outside/secret.png
///     dir-out      -> base/outside
///     pipe.png                    a FIFO
/// ```
struct LocalRoot {
    let base: URL
    var root: URL { base.appendingPathComponent("root", isDirectory: true) }
    var outside: URL { base.appendingPathComponent("outside", isDirectory: true) }

    /// The 32×32 gradient's pixels: R = 8x, G = 8y, B = 128, opaque.
    static let gradient: PixelBuffer = {
        var bytes = [UInt8]()
        for y in 0..<32 {
            for x in 0..<32 { bytes += [UInt8(8 * x), UInt8(8 * y), 128, 255] }
        }
        return PixelBuffer(width: 32, height: 32, bytes: bytes) ?? PixelBuffer(width: 0, height: 0)
    }()

    static func png(_ pixels: PixelBuffer) throws -> Data {
        try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png, options: ImageEncodeOptions())
    }

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-local-\(UUID().uuidString)", isDirectory: true)
        let files = FileManager.default
        try files.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try files.createDirectory(at: outside, withIntermediateDirectories: true)
        let png = try Self.png(Self.gradient)
        try png.write(to: root.appendingPathComponent("a.png"))
        try png.write(to: root.appendingPathComponent("sub/b.png"))
        // A different image outside, so a leak would be visible in the answer.
        var red = [UInt8]()
        for _ in 0..<(32 * 32) { red += [255, 0, 0, 255] }
        try Self.png(PixelBuffer(width: 32, height: 32, bytes: red) ?? PixelBuffer(width: 0, height: 0))
            .write(to: outside.appendingPathComponent("secret.png"))
        try files.createSymbolicLink(atPath: root.appendingPathComponent("link-in.png").path, withDestinationPath: "a.png")
        try files.createSymbolicLink(
            atPath: root.appendingPathComponent("link-out.png").path, withDestinationPath: outside.appendingPathComponent("secret.png").path)
        try files.createSymbolicLink(atPath: root.appendingPathComponent("dir-out").path, withDestinationPath: outside.path)
        guard mkfifo(root.appendingPathComponent("pipe.png").path, 0o644) == 0 else { throw POSIXError(.EIO) }
    }

    /// Copies a file into the root under `name`.
    func add(_ source: URL, as name: String) throws {
        try FileManager.default.copyItem(at: source, to: root.appendingPathComponent(name))
    }

    func remove() { try? FileManager.default.removeItem(at: base) }
}
