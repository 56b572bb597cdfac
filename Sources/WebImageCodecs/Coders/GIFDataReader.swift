import CGIF
import Foundation

/// Feeds giflib from memory: the `InputFunc` behind `DGifOpen`, with the read position
/// exposed so the decoder knows where each frame's LZW data starts and ends.
///
/// Used by one decode on one thread; giflib reaches it through `UserData`.
final class GIFDataReader {
    let bytes: [UInt8]
    /// Index of the next byte giflib will read.
    private(set) var offset = 0

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    /// Reads `bytes` (shared, not copied: a lazy decoder opens the same file many times).
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Copies up to `count` bytes to `destination`; fewer (down to 0) at the end of the data,
    /// which giflib reports as `D_GIF_ERR_READ_FAILED`.
    func read(into destination: UnsafeMutablePointer<GifByteType>, count: Int) -> Int {
        let n = max(0, min(count, bytes.count - offset))
        if n > 0 {
            bytes.withUnsafeBufferPointer { src in
                guard let base = src.baseAddress else { return }
                destination.update(from: base + offset, count: n)
            }
            offset += n
        }
        return n
    }

    /// Moves the read position, for image data decoded outside giflib.
    func skip(to newOffset: Int) {
        offset = min(max(newOffset, offset), bytes.count)
    }

    /// Opens `self` as a giflib decoder. The caller must keep `self` alive until
    /// `DGifCloseFile`, and must close the returned handle.
    func open() throws(WebImageError) -> UnsafeMutablePointer<GifFileType> {
        var error: Int32 = 0
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let gif = DGifOpen(context, gifDataReaderRead, &error) else {
            throw .badImageData("Not a readable GIF header: \(GIFDataReader.describe(error))")
        }
        return gif
    }

    /// giflib's message for an error code.
    static func describe(_ code: Int32) -> String {
        guard let text = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: text)
    }
}

/// The C callback giflib calls for input; `UserData` is an unretained ``GIFDataReader``.
private func gifDataReaderRead(
    _ gif: UnsafeMutablePointer<GifFileType>?,
    _ buffer: UnsafeMutablePointer<GifByteType>?,
    _ count: Int32
) -> Int32 {
    guard let gif, let buffer, count > 0, let context = gif.pointee.UserData else { return 0 }
    let reader = Unmanaged<GIFDataReader>.fromOpaque(context).takeUnretainedValue()
    return Int32(reader.read(into: buffer, count: Int(count)))
}
