#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a parquet file of one row group, as img2dataset's shard metadata is: a flat schema
/// of string, binary, integer, floating-point and boolean columns, required or optional;
/// PLAIN values, data pages v1 (a new page per MiB of values), uncompressed or snappy, no
/// statistics. pyarrow, pandas and DuckDB read it.
///
/// Rows are encoded into per-column page buffers as they are appended (the file holds one row
/// group, so its columns can only be laid out at the end). ``finish()`` writes the file as
/// `.NAME.partial` beside `path` and renames it over `path`, so a reader never sees half a file.
///
/// **Threads.** Not thread-safe; ``finish()`` blocks on file writes on the caller's thread.
public struct ParquetFileWriter {
    public let path: String
    public let fields: [ParquetField]
    public let compression: ParquetCompression
    /// The rows appended so far.
    public private(set) var rowCount = 0
    private var columns: [ColumnWriter]

    /// Prepares a file at `path` (nothing is written before ``finish()``).
    ///
    /// Throws ``ParquetError/invalidWrite(_:)`` for an empty schema, an empty or repeated
    /// name, or a compression other than ``ParquetCompression/uncompressed`` and ``ParquetCompression/snappy``.
    public init(path: String, fields: [ParquetField], compression: ParquetCompression = .snappy) throws(ParquetError) {
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
    }

    /// Writes the file and renames it into place. Blocking file writes on the caller's thread.
    public consuming func finish() throws(ParquetError) {
        var body: [UInt8] = Array("PAR1".utf8)
        var chunks: [(offset: Int, column: ColumnWriter)] = []
        if rowCount > 0 {
            for index in columns.indices {
                try columns[index].closePage()
                chunks.append((body.count, columns[index]))
                body.append(contentsOf: columns[index].chunk)
            }
        }
        let footer = Self.footer(fields: fields, rows: rowCount, chunks: chunks, compression: compression)
        body.append(contentsOf: footer)
        let length = UInt32(footer.count)
        body.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)])
        body.append(contentsOf: Array("PAR1".utf8))
        try Self.writeAtomically(body, to: path)
    }

    private static func footer(
        fields: [ParquetField], rows: Int, chunks: [(offset: Int, column: ColumnWriter)], compression: ParquetCompression
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
            let groups = chunks.isEmpty ? [] : [chunks]
            meta.list(4, of: groups) { group, chunks in
                group.list(1, of: chunks) { chunk, entry in
                    chunk.i64(2, Int64(entry.offset))
                    chunk.structure(3) { column in
                        column.i32(1, entry.column.field.physicalType.rawValue)
                        column.i32List(2, [ParquetEncoding.plain.rawValue, ParquetEncoding.rle.rawValue])
                        column.stringList(3, [entry.column.field.name])
                        column.i32(4, compression.rawValue)
                        column.i64(5, Int64(rows))
                        column.i64(6, Int64(entry.column.uncompressedSize))
                        column.i64(7, Int64(entry.column.chunk.count))
                        column.i64(9, Int64(entry.offset))
                    }
                }
                group.i64(2, Int64(chunks.reduce(0) { $0 + $1.column.uncompressedSize }))
                group.i64(3, Int64(rows))
                group.i64(5, Int64(chunks[0].offset))
                group.i64(6, Int64(chunks.reduce(0) { $0 + $1.column.chunk.count }))
                group.i16(7, 0)
            }
            meta.string(6, "webimage parquet writer")
        }
        return thrift.bytes
    }

    /// Writes `bytes` to `.NAME.partial` beside `path`, then renames it to `path`.
    private static func writeAtomically(_ bytes: [UInt8], to path: String) throws(ParquetError) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let partial = folder + "." + name + ".partial"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "create", path: partial, errno: errno) }
        var written = 0
        var failure: ParquetError?
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = write(fd, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    failure = .io(operation: "write", path: partial, errno: result < 0 ? errno : EIO)
                    return
                }
                written += result
            }
        }
        if close(fd) != 0 && failure == nil { failure = .io(operation: "close", path: partial, errno: errno) }
        if failure == nil && rename(partial, path) != 0 { failure = .io(operation: "rename to \(path)", path: partial, errno: errno) }
        if let failure {
            unlink(partial)
            throw failure
        }
    }
}
