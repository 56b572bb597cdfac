import CGIF

/// The block structure of a GIF, read without decoding any pixel: where each image's
/// records start, its rectangle and graphic control, and the loop count. Lets
/// ``GIFAnimationDecoder`` answer frame count and durations at once and restart a walk at
/// a keyframe.
///
/// Mirrors what ``GIFFrameWalker`` reads: the last graphic control before an image applies
/// to it, the first NETSCAPE2.0/ANIMEXTS1.0 loop count wins, and a walk stops at the
/// trailer or at a byte that starts no known record.
struct GIFAnimationScan {
    /// One image whose data is complete in the file.
    struct Image {
        /// Where the records leading to this image start (just past the previous image's
        /// data): a walker started here reads this image's graphic control, then the image.
        var recordOffset: Int
        var rect: GIFFrameRect
        /// The graphic control disposal mode (`DISPOSE_BACKGROUND`, `DISPOSE_PREVIOUS`, …).
        var disposal: Int32
        /// Whether a transparent index is set.
        var hasTransparency: Bool
        /// Delay in centiseconds.
        var delay: Int32
        /// The LZW minimum code size (9 to 11 decode through ``GIFWideCodeImage``, which may
        /// draw only part of the image).
        var codeSize: Int
    }

    private(set) var images: [Image] = []
    /// 1 (play once) unless a loop extension says otherwise.
    private(set) var loopCount = 1
    /// Whether the data ends inside a block: the image there is missing.
    private(set) var isTruncated = false

    init(_ bytes: [UInt8]) {
        // Raw pointers: this walks every sub-block of the file before the first frame shows.
        bytes.withUnsafeBufferPointer { self.scan($0) }
    }

    /// Offset just past the sub-blocks starting at `offset`, or `nil` when the data ends
    /// first. Calls `visit` with the offset of each sub-block's length byte.
    private static func skipSubBlocks(_ p: UnsafeBufferPointer<UInt8>, from offset: Int,
                                      visit: ((Int) -> Void)? = nil) -> Int? {
        var offset = offset
        let count = p.count
        while offset < count {
            let length = Int(p[offset])
            if length == 0 { return offset + 1 }
            guard offset + length < count else { return nil }
            visit?(offset)
            offset += 1 + length
        }
        return nil
    }

    private mutating func scan(_ p: UnsafeBufferPointer<UInt8>) {
        guard p.count >= 13 else {
            isTruncated = true
            return
        }
        var offset = 13
        if p[10] & 0x80 != 0 { offset += 3 << (Int(p[10] & 0x07) + 1) }
        var recordStart = offset
        var control: (disposal: Int32, transparent: Bool, delay: Int32)?
        var loop: Int?

        scan: while offset < p.count {
            switch p[offset] {
            case 0x21:
                guard offset + 2 < p.count else { isTruncated = true; break scan }
                let label = p[offset + 1]
                let first = offset + 2
                let length = Int(p[first])
                var isLoopExtension = false
                if label == 0xF9, length >= 4, first + 4 < p.count {
                    let packed = p[first + 1]
                    control = (Int32((packed >> 2) & 0x07), packed & 0x01 != 0,
                               Int32(p[first + 2]) | Int32(p[first + 3]) << 8)
                } else if label == 0xFF, length == 11, first + 11 < p.count {
                    let name = String(decoding: UnsafeBufferPointer(rebasing: p[(first + 1)...(first + 11)]), as: UTF8.self)
                    isLoopExtension = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
                }
                var sawLoop = false
                let end: Int?
                if isLoopExtension {
                    end = Self.skipSubBlocks(p, from: first) { at in
                        guard at != first, loop == nil, p[at] >= 3, p[at + 1] == 1 else { return }
                        loop = Int(p[at + 2]) | Int(p[at + 3]) << 8
                        sawLoop = true
                    }
                } else {
                    end = Self.skipSubBlocks(p, from: first)
                }
                guard let end else { isTruncated = true; break scan }
                offset = end
                if isLoopExtension, !sawLoop, loop == nil { loop = 0 }
            case 0x2C:
                guard offset + 10 < p.count else { isTruncated = true; break scan }
                func word(_ i: Int) -> Int { Int(p[offset + i]) | Int(p[offset + i + 1]) << 8 }
                let rect = GIFFrameRect(left: word(1), top: word(3), width: word(5), height: word(7))
                let flags = p[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
                guard offset < p.count else { isTruncated = true; break scan }
                let codeSize = Int(p[offset])
                guard let end = Self.skipSubBlocks(p, from: offset + 1) else { isTruncated = true; break scan }
                offset = end
                images.append(Image(recordOffset: recordStart, rect: rect, disposal: control?.disposal ?? 0,
                                    hasTransparency: control?.transparent ?? false, delay: control?.delay ?? 0,
                                    codeSize: codeSize))
                control = nil
                recordStart = offset
            default:  // the trailer, or damage a walk stops at too
                break scan
            }
        }
        loopCount = loop ?? 1
    }

    /// For each image, the nearest image at or before it whose composition does not
    /// depend on earlier ones: image 0; an image after one disposed to background over
    /// the whole canvas (the canvas is transparent again); or an opaque image covering the
    /// whole canvas that does not restore to the previous picture.
    func keyframes(width: Int, height: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(images.count)
        for (k, image) in images.enumerated() {
            func covers(_ r: GIFFrameRect) -> Bool {
                r.left == 0 && r.top == 0 && r.width >= width && r.height >= height
            }
            let afterClear = k > 0 && images[k - 1].disposal == DISPOSE_BACKGROUND && covers(images[k - 1].rect)
            let opaqueCover = covers(image.rect) && !image.hasTransparency && image.codeSize <= 8
                && image.disposal != DISPOSE_PREVIOUS
            result.append(k == 0 || afterClear || opaqueCover ? k : result[k - 1])
        }
        return result
    }
}
