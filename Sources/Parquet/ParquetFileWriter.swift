#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a parquet file as img2dataset's shards are: a flat schema of string, binary,
/// integer, floating-point and boolean columns, required or optional; PLAIN values, data
/// pages v1 (a new page per MiB of values), uncompressed or snappy, no statistics. pyarrow,
/// pandas and DuckDB read it.
///
/// Rows are encoded into per-column page buffers as they are appended. With `rowGroupRows`
/// (img2dataset's parquet output flushes every 100 rows) each full row group is written to
/// `.NAME.partial` beside `path` as soon as it is complete, so memory holds one row group;
/// without it the file is one row group, laid out at the end. ``finish()`` writes the footer
/// and renames the partial file over `path`, so a reader never sees half a file;
/// ``abandon()`` removes it.
///
/// **Threads.** Not thread-safe; ``append(_:)`` (when it completes a row group),
/// ``finish()`` and ``abandon()`` block on file writes on the caller's thread.
public struct ParquetFileWriter {
    public let path: String
    public let fields: [ParquetField]
    public let compression: ParquetCompression
    /// The rows appended so far.
    public private(set) var rowCount = 0
    /// Rows per row group (`Int.max`: one row group).
    public let rowGroupRows: Int
    private var columns: [ColumnWriter]
    /// Rows in the row group being built.
    private var groupRows = 0
    /// The row groups already in the partial file: their rows and column chunks.
    private var groups: [Group] = []
    /// The partial file, once a row group went into it; -1 before.
    private var fd: Int32 = -1
    /// Bytes written to the partial file.
    private var offset = 0

    struct Chunk {
        var offset: Int
        var field: ParquetField
        var uncompressedSize: Int
        var compressedSize: Int
    }

    struct Group {
        var rows: Int
        var chunks: [Chunk]
    }

    /// `.NAME.partial` beside ``path``.
    private var partialPath: String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + "." + name + ".partial"
    }

    /// Prepares a file at `path` (nothing is written before ``finish()``).
    ///
    /// Throws ``ParquetError/invalidWrite(_:)`` for an empty schema, an empty or repeated
    /// name, or a compression other than ``ParquetCompression/uncompressed`` and ``ParquetCompression/snappy``.
    public init(
        path: String, fields: [ParquetField], compression: ParquetCompression = .snappy, rowGroupRows: Int = .max
    ) throws(ParquetError) {
        guard !fields.isEmpty else { throw .invalidWrite("a schema without columns") }
        guard compression == .uncompressed || compression == .snappy else {
            throw .invalidWrite("\(compression) compression (the writer makes UNCOMPRESSED or SNAPPY pages)")
        }
        var seen = Set<String>()
        for field in fields {
            guard !field.name.isEmpty, seen.insert(field.name).inserted else {
                throw .invalidWrite("column name \"\(field.name)\" empty or repeated")
            }
        }
        self.path = path
        self.fields = fields
        self.compression = compression
        self.rowGroupRows = max(1, rowGroupRows)
        columns = fields.map { ColumnWriter(field: $0, compression: compression) }
    }

    /// Appends one row: a value per field, in the fields' order. `.null` only in optional
    /// columns; an `.int32` goes into an INT64 column and a `.float` into a DOUBLE one.
    public mutating func append(_ row: [ParquetValue]) throws(ParquetError) {
        guard row.count == columns.count else {
            throw .invalidWrite("a row of \(row.count) values for \(columns.count) columns")
        }
        // Checked before anything is stored, so a refused row leaves the columns aligned.
        for (value, column) in zip(row, columns) { try column.check(value) }
        for index in columns.indices { try columns[index].append(row[index]) }
        rowCount += 1
        groupRows += 1
        if groupRows >= rowGroupRows { try flushGroup() }
    }

    /// Writes the row group being built into the partial file (opened on the first one).
    private mutating func flushGroup() throws(ParquetError) {
        guard groupRows > 0 else { return }
        try openPartial()
        var chunks: [Chunk] = []
        for index in columns.indices {
            try columns[index].closePage()
            chunks.append(Chunk(offset: offset, field: columns[index].field,
                                uncompressedSize: columns[index].uncompressedSize, compressedSize: columns[index].chunk.count))
            try writeAll(columns[index].chunk)
        }
        groups.append(Group(rows: groupRows, chunks: chunks))
        columns = fields.map { ColumnWriter(field: $0, compression: compression) }
        groupRows = 0
    }

    private mutating func openPartial() throws(ParquetError) {
        guard fd < 0 else { return }
        let partial = partialPath
        fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "create", path: partial, errno: errno) }
        try writeAll(Array("PAR1".utf8))
    }

    private mutating func writeAll(_ bytes: [UInt8]) throws(ParquetError) {
        var written = 0
        var failure: Int32?
        let descriptor = fd
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    failure = result < 0 ? errno : EIO
                    return
                }
                written += result
            }
        }
        if let failure { throw .io(operation: "write", path: partialPath, errno: failure) }
        offset += bytes.count
    }

    /// Writes the last row group and the footer, then renames the file into place. Blocking
    /// file writes on the caller's thread. On an error the partial file is removed.
    public consuming func finish() throws(ParquetError) {
        do throws(ParquetError) {
            try flushGroup()
            try openPartial()
            let footer = Self.footer(fields: fields, rows: rowCount, groups: groups, compression: compression)
            let length = UInt32(footer.count)
            try writeAll(footer + [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)]
                         + Array("PAR1".utf8))
            let partial = partialPath
            let closed = close(fd)
            fd = -1
            guard closed == 0 else { throw .io(operation: "close", path: partial, errno: errno) }
            guard rename(partial, path) == 0 else { throw .io(operation: "rename to \(path)", path: partial, errno: errno) }
        } catch {
            abandon()
            throw error
        }
    }

    /// Closes and removes the partial file, if any: the file is not written.
    public mutating func abandon() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        unlink(partialPath)
    }

    private static func footer(
        fields: [ParquetField], rows: Int, groups: [Group], compression: ParquetCompression
    ) -> [UInt8] {
        var thrift = ThriftCompactWriter()
        thrift.structBody { meta in
            meta.i32(1, 1)
            // The schema depth first: the root group (nil here) with the leaves as its children.
            meta.list(2, of: [nil] + fields.map { Optional($0) }) { element, field in
                guard let field else {
                    element.string(4, "schema")
                    element.i32(5, Int32(fields.count))
                    return
                }
                element.i32(1, field.physicalType.rawValue)
                element.i32(3, field.isOptional ? 1 : 0)
                element.string(4, field.name)
                if field.kind == .string {
                    element.i32(6, 0)  // ConvertedType UTF8, for readers older than logical types.
                    element.structure(10) { logical in logical.structure(1) { _ in } }
                }
            }
            meta.i64(3, Int64(rows))
            meta.list(4, of: Array(groups.enumerated())) { group, element in
                let (ordinal, entry) = element
                let chunks = entry.chunks
                group.list(1, of: chunks) { chunk, c in
                    chunk.i64(2, Int64(c.offset))
                    chunk.structure(3) { column in
                        column.i32(1, c.field.physicalType.rawValue)
                        column.i32List(2, [ParquetEncoding.plain.rawValue, ParquetEncoding.rle.rawValue])
                        column.stringList(3, [c.field.name])
                        column.i32(4, compression.rawValue)
                        column.i64(5, Int64(entry.rows))
                        column.i64(6, Int64(c.uncompressedSize))
                        column.i64(7, Int64(c.compressedSize))
                        column.i64(9, Int64(c.offset))
                    }
                }
                group.i64(2, Int64(chunks.reduce(0) { $0 + $1.uncompressedSize }))
                group.i64(3, Int64(entry.rows))
                group.i64(5, Int64(chunks.first?.offset ?? 4))
                group.i64(6, Int64(chunks.reduce(0) { $0 + $1.compressedSize }))
                group.i16(7, Int16(clamping: ordinal))
            }
            meta.string(6, "webimage parquet writer")
        }
        return thrift.bytes
    }
}
