import CSnappy
import CZlib
import CZstd

/// Page (de)compression through Debian's C libraries: snappy, zlib (GZIP pages) and zstd.
///
/// **Threads.** Runs on the caller's thread; the libraries keep no shared state.
enum PageCodec {
    /// Decompresses `input` into `output`, which must come out exactly full (its size is the
    /// page header's uncompressed size, already checked against the reader's limit).
    static func decompress(
        _ input: UnsafeRawBufferPointer, codec: ParquetCompression, into output: UnsafeMutableRawBufferPointer
    ) throws(ParquetError) {
        let expected = output.count
        let written: Int
        switch codec {
        case .uncompressed:
            guard input.count == expected else {
                throw .decompressedSizeMismatch(codec: "\(codec)", expected: expected, actual: input.count)
            }
            if let from = input.baseAddress, let to = output.baseAddress { to.copyMemory(from: from, byteCount: expected) }
            return
        case .snappy: written = try snappy(input, into: output)
        case .gzip: written = try gzip(input, into: output)
        case .zstd: written = try zstd(input, into: output)
        default: throw .unsupported("\(codec) compression")
        }
        guard written == expected else {
            throw .decompressedSizeMismatch(codec: "\(codec)", expected: expected, actual: written)
        }
    }

    private static func snappy(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(ParquetError) -> Int {
        guard let source = input.baseAddress?.assumingMemoryBound(to: CChar.self) else {
            throw .decompression(codec: "SNAPPY", reason: "empty input")
        }
        var declared = 0
        guard snappy_uncompressed_length(source, input.count, &declared) == SNAPPY_OK else {
            throw .decompression(codec: "SNAPPY", reason: "no valid length preamble")
        }
        // Checked before decompressing: snappy would refuse a short output anyway, this says why.
        guard declared == out.count else {
            throw .decompressedSizeMismatch(codec: "SNAPPY", expected: out.count, actual: declared)
        }
        if declared == 0 { return 0 }
        var length = out.count
        guard let target = out.baseAddress?.assumingMemoryBound(to: CChar.self),
              snappy_uncompress(source, input.count, target, &length) == SNAPPY_OK
        else { throw .decompression(codec: "SNAPPY", reason: "corrupt stream") }
        return length
    }

    private static func zstd(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(ParquetError) -> Int {
        guard let source = input.baseAddress, input.count > 0 else {
            throw .decompression(codec: "ZSTD", reason: "empty input")
        }
        // A frame longer than the page header says fails as "destination buffer too small".
        let written = ZSTD_decompress(out.baseAddress, out.count, source, input.count)
        if ZSTD_isError(written) != 0 {
            throw .decompression(codec: "ZSTD", reason: String(cString: ZSTD_getErrorName(written)))
        }
        return written
    }

    private static func gzip(_ input: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(ParquetError) -> Int {
        guard let source = input.baseAddress, input.count > 0 else {
            throw .decompression(codec: "GZIP", reason: "empty input")
        }
        var stream = z_stream()
        // 15 + 32: a gzip or a zlib header, detected (writers differ in which they use).
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .decompression(codec: "GZIP", reason: "inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: source.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(out.count)
        while true {
            let status = inflate(&stream, Z_FINISH)
            if status == Z_STREAM_END {
                // Concatenated gzip members, as some writers produce: go on with the next.
                guard stream.avail_in > 0 else { break }
                guard inflateReset(&stream) == Z_OK else { throw .decompression(codec: "GZIP", reason: "reset failed") }
                continue
            }
            if status == Z_BUF_ERROR && stream.avail_out == 0 {
                throw .decompression(codec: "GZIP", reason: "more than the \(out.count) bytes its page header says")
            }
            let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
            throw .decompression(codec: "GZIP", reason: reason)
        }
        return out.count - Int(stream.avail_out)
    }

    /// Snappy-compresses `input` (the writer's pages).
    static func snappyCompress(_ input: [UInt8]) throws(ParquetError) -> [UInt8] {
        let capacity = snappy_max_compressed_length(input.count)
        var failure: ParquetError?
        let result = [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
            var length = capacity
            let status = input.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { source in
                    out.withMemoryRebound(to: CChar.self) { out in
                        snappy_compress(source.baseAddress, source.count, out.baseAddress, &length)
                    }
                }
            }
            if status == SNAPPY_OK { count = length } else { count = 0; failure = .decompression(codec: "SNAPPY", reason: "compress failed") }
        }
        if let failure { throw failure }
        return result
    }
}
