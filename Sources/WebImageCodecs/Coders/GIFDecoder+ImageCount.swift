extension GIFDecoder {
    /// How many images (frames) the GIF in `bytes` declares, counted by walking the block
    /// structure (extensions and image data sub-blocks are skipped, nothing is decoded).
    ///
    /// Lets the pixel limit refuse canvas × frames before the first frame is drawn: a
    /// small file of many tiny frames on a large canvas would otherwise allocate a full
    /// canvas per frame until the limit is reached. An image cut off by the end of the
    /// data still counts.
    static func declaredImageCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { declaredImageCount($0) }
    }

    /// ``declaredImageCount(_:)`` over raw bytes, stopping once `limit` images are counted.
    static func declaredImageCount(_ bytes: UnsafeRawBufferPointer, limit: Int = .max) -> Int {
        guard bytes.count >= 13 else { return 0 }
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        var count = 0
        func skipSubBlocks() {
            while offset < bytes.count {
                let length = Int(bytes[offset])
                offset += 1 + length
                if length == 0 { return }
            }
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:  // extension: introducer, label, sub-blocks
                offset += 2
                skipSubBlocks()
            case 0x2C:  // image: descriptor, optional local colour table, LZW size, sub-blocks
                count += 1
                if count >= limit { return count }
                guard offset + 10 <= bytes.count else { return count }
                let flags = bytes[offset + 9]
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
                offset += 1
                skipSubBlocks()
            default:  // the trailer, or damage the decoder will report
                return count
            }
        }
        return count
    }
}
