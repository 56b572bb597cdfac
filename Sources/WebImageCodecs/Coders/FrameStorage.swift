/// Copies decoded canvases into reusable storage.
enum FrameStorage {
    /// `source` copied into a new buffer whose pages are faulted in by one call first.
    ///
    /// An eager animation decode keeps every frame, so each one's buffer is memory the
    /// process has not touched since the allocator last gave it back: one page fault per
    /// 4 KB (52,000 for the 380 frames of a 472×298 GIF), which ``PageFaults/prefault(_:)``
    /// replaces with one call.
    static func freshCopy(of source: PixelBuffer) -> PixelBuffer {
        PixelBuffer(width: source.width, height: source.height) { out in
            guard let to = out.baseAddress else { return }
            PageFaults.prefault(out)
            source.bytes.withUnsafeBufferPointer { src in
                guard let from = src.baseAddress else { return }
                to.update(from: from, count: min(src.count, out.count))
            }
        }
    }

    /// `source` copied into `storage` when that has the same size (overwriting its bytes; a
    /// storage shared with someone else is copied first by copy-on-write, so nobody sees
    /// the change), so the decoder's canvas stays uniquely referenced and is drawn on in
    /// place. Without a spare, `source` itself: copy-on-write copies the canvas when the
    /// next frame is drawn, which costs what a copy now would, and nothing when no next
    /// frame is asked for (a poster frame).
    static func copy(_ source: PixelBuffer, reusing storage: consuming PixelBuffer?) -> PixelBuffer {
        var slot = consume storage
        guard var target = slot.take(), target.width == source.width, target.height == source.height,
              target.bytes.count == source.bytes.count else {
            return source
        }
        target.withUnsafeMutableBytes { out in
            source.bytes.withUnsafeBufferPointer { src in
                guard let from = src.baseAddress, let to = out.baseAddress else { return }
                to.update(from: from, count: min(src.count, out.count))
            }
        }
        return target
    }

    /// A `width` × `height` buffer filled by `fill` (which must write every byte): `storage`
    /// when it has that size, else a fresh one.
    static func make(width: Int, height: Int, reusing storage: consuming PixelBuffer?,
                     fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> PixelBuffer {
        var slot = consume storage
        guard var target = slot.take(), target.width == width, target.height == height,
              target.bytes.count == PixelBuffer.byteCount(width: width, height: height) else {
            return PixelBuffer(width: width, height: height, unsafeUninitialized: fill)
        }
        target.withUnsafeMutableBytes(fill)
        return target
    }

    /// Throws unless `index` is a frame of `info`.
    static func check(_ index: Int, in info: AnimationInfo) throws(WebImageError) {
        guard index >= 0, index < info.frameCount else {
            throw .badImageData("No frame \(index) in an animation of \(info.frameCount) frames")
        }
    }
}
