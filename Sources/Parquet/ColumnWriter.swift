/// One column of ``ParquetFileWriter``: values PLAIN-encoded into the open page, closed pages
/// (header and possibly compressed body) appended to the column's chunk.
struct ColumnWriter {
    let field: ParquetField
    let compression: ParquetCompression
    /// The finished pages, as they go into the file.
    private(set) var chunk: [UInt8] = []
    /// The chunk's size with every page body uncompressed (the metadata's total_uncompressed_size).
    private(set) var uncompressedSize = 0

    private var values: [UInt8] = []
    private var booleans: [Bool] = []
    /// 1 for a value, 0 for a null (optional columns only).
    private var levels: [UInt8] = []
    private var pageRows = 0

    /// A page is closed once its values pass this size (pyarrow's default page size too).
    static let pageSize = 1 << 20

    init(field: ParquetField, compression: ParquetCompression) {
        self.field = field
        self.compression = compression
    }

    /// Whether `value` fits this column.
    func check(_ value: ParquetValue) throws(ParquetError) {
        let fits = switch (value, field.kind) {
        case (.null, _): field.isOptional
        case (.string, .string), (.string, .binary), (.binary, .binary), (.binary, .string): true
        case (.int32, .int32), (.int32, .int64), (.int64, .int64): true
        case (.float, .float), (.float, .double), (.double, .double): true
        case (.boolean, .boolean): true
        default: false
        }
        guard fits else { throw .invalidWrite("\(value) in column \(field.name) (\(field.kind), optional \(field.isOptional))") }
        if case let .string(text) = value, text.utf8.count > Int(Int32.max) {
            throw .invalidWrite("a value of \(text.utf8.count) bytes in column \(field.name)")
        }
        if case let .binary(bytes) = value, bytes.count > Int(Int32.max) {
            throw .invalidWrite("a value of \(bytes.count) bytes in column \(field.name)")
        }
    }

    /// Appends a value already ``check(_:)``ed.
    mutating func append(_ value: ParquetValue) throws(ParquetError) {
        pageRows += 1
        if field.isOptional { levels.append(value == .null ? 0 : 1) }
        switch value {
        case .null: break
        case let .string(text): appendBytes(Array(text.utf8))
        case let .binary(bytes): appendBytes(bytes)
        case let .int32(v):
            if field.kind == .int64 { appendLittleEndian(UInt64(bitPattern: Int64(v))) } else { appendLittleEndian(UInt32(bitPattern: v)) }
        case let .int64(v): appendLittleEndian(UInt64(bitPattern: v))
        case let .float(v):
            if field.kind == .double { appendLittleEndian(Double(v).bitPattern) } else { appendLittleEndian(v.bitPattern) }
        case let .double(v): appendLittleEndian(v.bitPattern)
        case let .boolean(v): booleans.append(v)
        }
        if values.count + booleans.count / 8 >= Self.pageSize { try closePage() }
    }

    private mutating func appendBytes(_ bytes: [UInt8]) {
        appendLittleEndian(UInt32(bytes.count))
        values.append(contentsOf: bytes)
    }

    private mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { values.append(contentsOf: $0) }
    }

    /// Ends the open page (if it has rows): levels, values, compression, header.
    mutating func closePage() throws(ParquetError) {
        guard pageRows > 0 else { return }
        var body: [UInt8] = []
        if field.isOptional {
            let encoded = Self.runLengthEncode(levels)
            let length = UInt32(encoded.count)
            body.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)])
            body.append(contentsOf: encoded)
        }
        if field.kind == .boolean {
            // PLAIN booleans: one bit each, least significant first.
            var packed = [UInt8](repeating: 0, count: (booleans.count + 7) / 8)
            for (i, bit) in booleans.enumerated() where bit { packed[i >> 3] |= 1 << UInt8(i & 7) }
            body.append(contentsOf: packed)
        } else {
            body.append(contentsOf: values)
        }
        guard body.count <= Int(Int32.max) else {
            throw .invalidWrite("a page of \(body.count) bytes in column \(field.name)")
        }
        let stored = compression == .snappy ? try PageCodec.snappyCompress(body) : body
        var header = ThriftCompactWriter()
        header.structBody { page in
            page.i32(1, ParquetPageType.dataPage.rawValue)
            page.i32(2, Int32(body.count))
            page.i32(3, Int32(stored.count))
            page.structure(5) { data in
                data.i32(1, Int32(pageRows))
                data.i32(2, ParquetEncoding.plain.rawValue)
                data.i32(3, ParquetEncoding.rle.rawValue)
                data.i32(4, ParquetEncoding.rle.rawValue)
            }
        }
        chunk.append(contentsOf: header.bytes)
        chunk.append(contentsOf: stored)
        uncompressedSize += header.bytes.count + body.count
        values.removeAll(keepingCapacity: true)
        booleans.removeAll(keepingCapacity: true)
        levels.removeAll(keepingCapacity: true)
        pageRows = 0
    }

    /// Definition levels (0 or 1) as RLE runs of the hybrid encoding, bit width 1: a varint
    /// header (run length << 1) and the value in one byte.
    static func runLengthEncode(_ levels: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = 0
        while index < levels.count {
            let value = levels[index]
            var end = index + 1
            while end < levels.count && levels[end] == value { end += 1 }
            var header = UInt64(end - index) << 1
            while header >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: header) | 0x80)
                header >>= 7
            }
            bytes.append(UInt8(header))
            bytes.append(value)
            index = end
        }
        return bytes
    }
}
