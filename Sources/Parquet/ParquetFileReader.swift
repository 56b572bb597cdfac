#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a parquet file row group by row group, only the columns asked for.
///
/// Opening reads the footer (schema and row groups); ``readRowGroup(_:columns:)`` then reads
/// each wanted column chunk by its offset with `pread` and decodes it, so memory holds one row
/// group's projected columns at a time. Every size and offset the file declares is checked
/// against the file's length and ``Limits`` before anything is read or allocated by it: a
/// corrupt or truncated file is a ``ParquetError``, never a crash.
///
/// Reads flat schemas (nested columns can be in the file but not projected): BYTE_ARRAY,
/// INT32, INT64, FLOAT, DOUBLE and BOOLEAN columns, required or optional; PLAIN, dictionary,
/// RLE (booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and
/// BYTE_STREAM_SPLIT values; data pages v1 and v2; UNCOMPRESSED, SNAPPY, GZIP and ZSTD pages.
/// Not read: INT96 and FIXED_LEN_BYTE_ARRAY columns, repeated (nested) columns, encryption,
/// LZ4/BROTLI/LZO pages, the deprecated BIT_PACKED levels (each a ``ParquetError/unsupported(_:)``).
///
/// **Threads.** Every call runs on the caller's thread and blocks on file reads. The reader
/// is immutable after `init` (`pread` keeps no file position), so row groups may be read from
/// several threads at once.
public final class ParquetFileReader: Sendable {
    /// Caps on what a file may declare, so a hostile file cannot make the reader allocate without bound.
    public struct Limits: Sendable {
        /// The footer (schema and row-group metadata). Default 64 MiB.
        public var maxFooterSize = 64 << 20
        /// One page, decompressed. Default 256 MiB.
        public var maxPageSize = 256 << 20
        /// One column chunk as stored. Default 1 GiB.
        public var maxColumnChunkSize = 1 << 30
        /// The rows of one row group (each row costs 4 bytes per column beside its value). Default 32 Mi.
        public var maxRowsPerRowGroup = 32 << 20

        public init() {}
    }

    public let path: String
    public let limits: Limits
    /// The file's leaf columns, in the file's order.
    public let columns: [ParquetColumnDescriptor]
    /// The rows of the whole file, as its footer says.
    public let rowCount: Int
    /// The `created_by` string of the footer (the writing library and version), if any.
    public let createdBy: String?
    private let rowGroups: [ParquetRowGroupMetadata]
    private let dataEnd: Int
    private let fd: Int32

    /// Opens `path` and reads its footer.
    public init(path: String, limits: Limits = Limits()) throws(ParquetError) {
        self.path = path
        self.limits = limits
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(operation: "open", path: path, errno: errno) }
        do throws(ParquetError) {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw .io(operation: "stat", path: path, errno: errno) }
            let size = Int(info.st_size)
            guard size >= 12 else { throw .fileTooSmall(size: size) }
            let head = try Self.read(fd, path: path, offset: 0, count: 4)
            guard head == Self.magic else { throw .badMagic(where: "header") }
            let tail = try Self.read(fd, path: path, offset: size - 8, count: 8)
            guard Array(tail[4...]) == Self.magic else { throw .badMagic(where: "footer") }
            let footerLength = Int(tail[0]) | Int(tail[1]) << 8 | Int(tail[2]) << 16 | Int(tail[3]) << 24
            guard footerLength <= size - 12 else { throw .footerLengthPastFile(footerLength: footerLength, fileSize: size) }
            guard footerLength <= limits.maxFooterSize else {
                throw .sizeLimit(what: "footer", size: footerLength, limit: limits.maxFooterSize)
            }
            let footer = try Self.read(fd, path: path, offset: size - 8 - footerLength, count: footerLength)
            let decoded: Result<ParquetFileMetadata, ParquetError> = footer.withUnsafeBytes { bytes in
                do throws(ParquetError) { return .success(try ParquetFileMetadata(decoding: bytes)) } catch { return .failure(error) }
            }
            let metadata = try decoded.get()
            columns = try ParquetSchemaTree(metadata.schema).leaves
            for (index, group) in metadata.rowGroups.enumerated() where group.columns.count != columns.count {
                throw .invalidMetadata("row group \(index) has \(group.columns.count) column chunks for \(columns.count) columns")
            }
            guard metadata.numRows <= Int64(Int.max) else { throw .invalidMetadata("row count \(metadata.numRows)") }
            rowCount = Int(metadata.numRows)
            rowGroups = metadata.rowGroups
            createdBy = metadata.createdBy
            dataEnd = size - 8 - footerLength
            self.fd = fd
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    private static let magic: [UInt8] = Array("PAR1".utf8)

    /// The number of row groups.
    public var rowGroupCount: Int { rowGroups.count }

    /// The rows of row group `index` (0..<``rowGroupCount``), as its metadata says.
    public func rowCount(ofRowGroup index: Int) -> Int { Int(rowGroups[index].numRows) }

    /// The leaf column named `name` (a dotted path for nested ones), if any.
    public func column(named name: String) -> ParquetColumnDescriptor? { columns.first { $0.name == name } }

    /// Reads and decodes row group `index`'s chunks of the columns named `names`, in that order.
    ///
    /// Runs on the caller's thread, blocking on one `pread` per column chunk.
    public func readRowGroup(_ index: Int, columns names: [String]) throws(ParquetError) -> ParquetRowGroup {
        guard rowGroups.indices.contains(index) else {
            throw .invalidMetadata("row group \(index) of \(rowGroups.count)")
        }
        let group = rowGroups[index]
        guard group.numRows <= Int64(limits.maxRowsPerRowGroup) else {
            throw .sizeLimit(what: "row group \(index): rows", size: Int(group.numRows), limit: limits.maxRowsPerRowGroup)
        }
        var decoded: [ParquetColumn] = []
        for name in names {
            guard let descriptor = column(named: name) else { throw .columnNotFound(name) }
            // An empty row group's chunks may point nowhere (pyarrow writes offset 0): nothing to read.
            decoded.append(group.numRows == 0
                ? ParquetColumn(empty: descriptor)
                : try readChunk(group.columns[descriptor.leafIndex], descriptor, rows: Int(group.numRows)))
        }
        return ParquetRowGroup(rowCount: Int(group.numRows), columns: decoded)
    }

    private func readChunk(
        _ chunk: ParquetColumnChunkMetadata, _ descriptor: ParquetColumnDescriptor, rows: Int
    ) throws(ParquetError) -> ParquetColumn {
        let name = descriptor.name
        guard descriptor.maxRepetitionLevel == 0 else { throw .unsupported("column \(name): repeated (nested) column") }
        switch descriptor.physicalType {
        case .int96, .fixedLenByteArray: throw .unsupported("column \(name): physical type \(descriptor.physicalType)")
        default: break
        }
        guard !chunk.isEncrypted else { throw .unsupported("column \(name): encrypted column") }
        guard chunk.filePath == nil else { throw .unsupported("column \(name): chunk in another file") }
        guard chunk.hasMetadata else { throw .invalidMetadata("column \(name): chunk without metadata") }
        guard chunk.type == descriptor.physicalType.rawValue else {
            throw .invalidMetadata("column \(name): chunk type \(chunk.type), schema type \(descriptor.physicalType.rawValue)")
        }
        guard let codec = ParquetCompression(rawValue: chunk.codec) else {
            throw .invalidMetadata("column \(name): compression codec \(chunk.codec)")
        }
        var start = chunk.dataPageOffset
        // Some writers store 0 for "no dictionary page": only an offset before the data pages counts.
        if let dictionary = chunk.dictionaryPageOffset, dictionary > 0, dictionary < start { start = dictionary }
        let length = chunk.totalCompressedSize
        guard start >= 4, length >= 0, start <= Int64(dataEnd), length <= Int64(dataEnd) - start else {
            throw .chunkPastFile(column: name, offset: Int(clamping: start), length: Int(clamping: length), fileSize: dataEnd + 8)
        }
        guard length <= Int64(limits.maxColumnChunkSize) else {
            throw .sizeLimit(what: "column \(name): chunk", size: Int(length), limit: limits.maxColumnChunkSize)
        }
        let bytes = ByteHeap(capacity: Int(length))
        try Self.read(fd, path: path, offset: Int(start), into: UnsafeMutableRawBufferPointer(rebasing: bytes.tail[0..<Int(length)]))
        bytes.count = Int(length)
        // The decompression buffer's first size: the metadata's, within reason (it only saves regrowth).
        let hint = Int(clamping: min(max(chunk.totalUncompressedSize, 0), Int64(min(limits.maxColumnChunkSize, 16 * Int(length) + 4096))))
        let decoder = ColumnChunkDecoder(descriptor: descriptor, codec: codec, chunk: bytes, uncompressedSize: hint,
                                         expectedRows: rows, limits: limits)
        return try decoder.decode()
    }

    /// Reads exactly `count` bytes at `offset` (the caller has checked the range against the file).
    private static func read(_ fd: Int32, path: String, offset: Int, count: Int) throws(ParquetError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result: Result<Void, ParquetError> = bytes.withUnsafeMutableBytes { buffer in
            do throws(ParquetError) { return .success(try read(fd, path: path, offset: offset, into: buffer)) } catch {
                return .failure(error)
            }
        }
        try result.get()
        return bytes
    }

    /// Fills `buffer` from `offset`, retrying short reads.
    private static func read(_ fd: Int32, path: String, offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ParquetError) {
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset + done))
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .io(operation: "read", path: path, errno: errno) }
            guard got > 0 else { throw .io(operation: "read (the file shrank)", path: path, errno: EIO) }
            done += got
        }
    }
}
