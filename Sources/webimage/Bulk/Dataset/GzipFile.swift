#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CZlib
import Foundation

/// A list file read through zlib's `gzread`, which reads gzip-compressed and plain files
/// alike (a file without the gzip magic comes through as it is), so `csv` and `csv.gz`
/// share one reader.
///
/// **Threads.** Every call blocks: only the row reader's own serial queue calls it
/// (``DatasetRowReader``), never the cooperative pool.
final class GzipFile {
    /// What one read returns at most.
    static let chunkBytes = 256 * 1024

    private let file: gzFile
    let path: String

    /// Opens `path` (`-` is standard input). Throws a readable message when it cannot.
    init(path: String) throws(DatasetInputError) {
        self.path = path
        let opened: gzFile? = path == "-" ? gzdopen(dup(STDIN_FILENO), "rb") : gzopen(path, "rb")
        guard let opened else {
            throw DatasetInputError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        _ = gzbuffer(opened, 128 * 1024)
        file = opened
    }

    deinit { gzclose(file) }

    /// The next chunk of (decompressed) bytes; empty at the end.
    func read() throws(DatasetInputError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: Self.chunkBytes)
        let n = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress, UInt32(Self.chunkBytes)) }
        if n < 0 {
            var code: Int32 = 0
            let message = gzerror(file, &code).map { String(cString: $0) } ?? "read error"
            throw DatasetInputError("cannot read \(path): \(message)")
        }
        chunk.removeSubrange(Int(n)...)
        return chunk
    }
}

/// Why the input list could not be read (a usage problem at the start, or a bad row later).
struct DatasetInputError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
