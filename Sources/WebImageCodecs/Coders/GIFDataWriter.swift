import CGIF
import Foundation

/// Collects giflib's output in memory: the `OutputFunc` behind `EGifOpen`.
///
/// Used by one encode on one thread; giflib reaches it through `UserData`.
final class GIFDataWriter {
    private(set) var data = Data()

    func append(_ bytes: UnsafePointer<GifByteType>, count: Int) {
        data.append(bytes, count: count)
    }

    /// Opens `self` as a giflib encoder, or returns `nil` with `error` set. The caller must
    /// keep `self` alive until `EGifCloseFile`, and must close the returned handle.
    func open(_ error: inout Int32) -> UnsafeMutablePointer<GifFileType>? {
        EGifOpen(Unmanaged.passUnretained(self).toOpaque(), gifDataWriterWrite, &error)
    }
}

/// The C callback giflib calls for output; `UserData` is an unretained ``GIFDataWriter``.
private func gifDataWriterWrite(
    _ gif: UnsafeMutablePointer<GifFileType>?,
    _ bytes: UnsafePointer<GifByteType>?,
    _ count: Int32
) -> Int32 {
    guard let gif, let bytes, count > 0, let context = gif.pointee.UserData else { return 0 }
    let writer = Unmanaged<GIFDataWriter>.fromOpaque(context).takeUnretainedValue()
    writer.append(bytes, count: Int(count))
    return count
}
