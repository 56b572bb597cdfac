/// One element of the footer's depth-first schema list (Thrift `SchemaElement`).
struct ParquetSchemaElement {
    var type: Int32?
    var repetitionType: Int32?
    var name = ""
    var numChildren: Int32?
    var convertedType: Int32?
    var isStringLogicalType = false

    /// UTF8 converted type (0) or the STRING logical type (union field 1).
    var isString: Bool { convertedType == 0 || isStringLogicalType }
}

/// A column chunk's place and form in one row group (Thrift `ColumnChunk` + `ColumnMetaData`).
struct ParquetColumnChunkMetadata {
    var type: Int32 = -1
    var codec: Int32 = -1
    var numValues: Int64 = -1
    var totalUncompressedSize: Int64 = -1
    var totalCompressedSize: Int64 = -1
    var dataPageOffset: Int64 = -1
    var dictionaryPageOffset: Int64?
    var hasMetadata = false
    var isEncrypted = false
    var filePath: String?
}

/// One row group's size and column chunks (Thrift `RowGroup`).
struct ParquetRowGroupMetadata {
    var numRows: Int64 = -1
    var columns: [ParquetColumnChunkMetadata] = []
}

/// The decoded footer (Thrift `FileMetaData`): the schema and the row groups, all that the reader uses.
struct ParquetFileMetadata {
    var numRows: Int64 = -1
    var schema: [ParquetSchemaElement] = []
    var rowGroups: [ParquetRowGroupMetadata] = []
    var createdBy: String?
    var isEncrypted = false

    /// Decodes the footer bytes (between the data and the footer length).
    init(decoding bytes: UnsafeRawBufferPointer) throws(ParquetError) {
        var reader = ThriftCompactReader(bytes)
        var sawSchema = false, sawRowGroups = false
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 2:
                try r.expect(type, .list)
                schema = try r.readList(of: .structure) { (r: inout ThriftCompactReader) throws(ParquetError) in
                    try Self.schemaElement(&r)
                }
                sawSchema = true
            case 3:
                try r.expect(type, .i64)
                numRows = try r.readI64()
            case 4:
                try r.expect(type, .list)
                rowGroups = try r.readList(of: .structure) { (r: inout ThriftCompactReader) throws(ParquetError) in
                    try Self.rowGroup(&r)
                }
                sawRowGroups = true
            case 6:
                try r.expect(type, .binary)
                createdBy = try r.readString()
            case 8:
                isEncrypted = true
                return false
            default:
                return false
            }
            return true
        }
        guard !isEncrypted else { throw .unsupported("encrypted file") }
        guard sawSchema, sawRowGroups, numRows >= 0 else {
            throw .invalidMetadata("footer lacks its schema, row groups or row count")
        }
    }

    private static func schemaElement(_ reader: inout ThriftCompactReader) throws(ParquetError) -> ParquetSchemaElement {
        var element = ParquetSchemaElement()
        var sawName = false
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); element.type = try r.readI32()
            case 3: try r.expect(type, .i32); element.repetitionType = try r.readI32()
            case 4: try r.expect(type, .binary); element.name = try r.readString(); sawName = true
            case 5: try r.expect(type, .i32); element.numChildren = try r.readI32()
            case 6: try r.expect(type, .i32); element.convertedType = try r.readI32()
            case 10:
                try r.expect(type, .structure)
                try r.readStruct { (_: inout ThriftCompactReader, id: Int16, _: ThriftType) throws(ParquetError) -> Bool in
                    if id == 1 { element.isStringLogicalType = true }
                    return false
                }
            default: return false
            }
            return true
        }
        guard sawName else { throw reader.fail("schema element without a name") }
        if let repetition = element.repetitionType, !(0...2).contains(repetition) {
            throw reader.fail("repetition type \(repetition) out of range")
        }
        return element
    }

    private static func rowGroup(_ reader: inout ThriftCompactReader) throws(ParquetError) -> ParquetRowGroupMetadata {
        var group = ParquetRowGroupMetadata()
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1:
                try r.expect(type, .list)
                group.columns = try r.readList(of: .structure) { (r: inout ThriftCompactReader) throws(ParquetError) in
                    try Self.columnChunk(&r)
                }
            case 3: try r.expect(type, .i64); group.numRows = try r.readI64()
            default: return false
            }
            return true
        }
        guard group.numRows >= 0 else { throw reader.fail("row group without a valid row count") }
        return group
    }

    private static func columnChunk(_ reader: inout ThriftCompactReader) throws(ParquetError) -> ParquetColumnChunkMetadata {
        var chunk = ParquetColumnChunkMetadata()
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .binary); chunk.filePath = try r.readString()
            case 3:
                try r.expect(type, .structure)
                try Self.columnMetadata(&r, into: &chunk)
                chunk.hasMetadata = true
            case 8, 9: chunk.isEncrypted = true; return false
            default: return false
            }
            return true
        }
        return chunk
    }

    private static func columnMetadata(
        _ reader: inout ThriftCompactReader, into chunk: inout ParquetColumnChunkMetadata
    ) throws(ParquetError) {
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); chunk.type = try r.readI32()
            case 4: try r.expect(type, .i32); chunk.codec = try r.readI32()
            case 5: try r.expect(type, .i64); chunk.numValues = try r.readI64()
            case 6: try r.expect(type, .i64); chunk.totalUncompressedSize = try r.readI64()
            case 7: try r.expect(type, .i64); chunk.totalCompressedSize = try r.readI64()
            case 9: try r.expect(type, .i64); chunk.dataPageOffset = try r.readI64()
            case 11: try r.expect(type, .i64); chunk.dictionaryPageOffset = try r.readI64()
            default: return false
            }
            return true
        }
    }
}
