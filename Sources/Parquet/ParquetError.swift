#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that can go wrong reading or writing a parquet file, each case saying what is wrong
/// and where, so a caller can print it as is (after the file's name).
///
/// A malformed or truncated file always ends in one of these: the reader checks every size and
/// offset the file declares before it reads or allocates by it.
public enum ParquetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call on the file failed (`errno`).
    case io(operation: String, path: String, errno: Int32)
    /// The file is shorter than the 12 bytes of the smallest parquet file.
    case fileTooSmall(size: Int)
    /// `PAR1` is missing at the start or at the end (`where` is "header" or "footer").
    case badMagic(where: String)
    /// The footer length in the last 8 bytes points before the header or past the file.
    case footerLengthPastFile(footerLength: Int, fileSize: Int)
    /// The Thrift compact encoding of the footer or a page header is wrong at `offset`
    /// (relative to the start of that structure).
    case thrift(offset: Int, reason: String)
    /// A required field is missing or a value is out of its range in the file's metadata.
    case invalidMetadata(String)
    /// The file uses something this reader does not read (encryption, nested columns, an encoding or codec).
    case unsupported(String)
    /// A projected column is not in the file's schema.
    case columnNotFound(String)
    /// A column chunk's byte range lies outside the file's data.
    case chunkPastFile(column: String, offset: Int, length: Int, fileSize: Int)
    /// A page header or page body runs past the end of its column chunk.
    case pagePastChunk(column: String, offset: Int, length: Int, chunkLength: Int)
    /// A codec refused a page.
    case decompression(codec: String, reason: String)
    /// A page decompressed to a size other than its header declares.
    case decompressedSizeMismatch(codec: String, expected: Int, actual: Int)
    /// A dictionary-encoded value refers past the column chunk's dictionary.
    case dictionaryIndexOutOfRange(column: String, index: Int, dictionarySize: Int)
    /// A page's levels or values do not match what its header or the schema says.
    case corruptPage(column: String, reason: String)
    /// A size the file declares is beyond the reader's limit (``ParquetFileReader/Limits``).
    case sizeLimit(what: String, size: Int, limit: Int)
    /// The writer was given rows that do not fit its schema.
    case invalidWrite(String)

    public var description: String {
        switch self {
        case let .io(operation, path, code): "\(operation) \(path): \(String(cString: strerror(code)))"
        case let .fileTooSmall(size): "not a parquet file: \(size) bytes, fewer than the 12 of the smallest one"
        case let .badMagic(place): "not a parquet file: no PAR1 magic in the \(place)"
        case let .footerLengthPastFile(length, size): "footer length \(length) does not fit in a file of \(size) bytes"
        case let .thrift(offset, reason): "corrupt metadata at byte \(offset) of its Thrift structure: \(reason)"
        case let .invalidMetadata(reason): "invalid metadata: \(reason)"
        case let .unsupported(what): "unsupported: \(what)"
        case let .columnNotFound(name): "no column \(name) in the file's schema"
        case let .chunkPastFile(column, offset, length, size):
            "column \(column): chunk at \(offset) of \(length) bytes lies outside the data of a \(size)-byte file"
        case let .pagePastChunk(column, offset, length, chunk):
            "column \(column): page at \(offset) of \(length) bytes runs past the end of its \(chunk)-byte chunk"
        case let .decompression(codec, reason): "\(codec) page does not decompress: \(reason)"
        case let .decompressedSizeMismatch(codec, expected, actual):
            "\(codec) page decompressed to \(actual) bytes, its header says \(expected)"
        case let .dictionaryIndexOutOfRange(column, index, size):
            "column \(column): dictionary index \(index) out of range (dictionary of \(size))"
        case let .corruptPage(column, reason): "column \(column): \(reason)"
        case let .sizeLimit(what, size, limit): "\(what) of \(size) bytes is over the limit of \(limit)"
        case let .invalidWrite(reason): "cannot write: \(reason)"
        }
    }
}
