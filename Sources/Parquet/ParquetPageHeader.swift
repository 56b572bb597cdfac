/// One page's header (Thrift `PageHeader` with the part for its kind).
struct ParquetPageHeader {
    var type: Int32 = -1
    var uncompressedSize: Int32 = -1
    var compressedSize: Int32 = -1
    /// Data pages (v1 and v2) and dictionary pages: the number of values (v1/v2: with nulls).
    var numValues: Int32 = -1
    var encoding: Int32 = -1
    /// v1: the definition levels' encoding (RLE or the old BIT_PACKED).
    var definitionLevelEncoding: Int32 = 3
    /// v2: the levels' byte lengths (stored uncompressed before the values), the nulls and rows.
    var numNulls: Int32 = 0
    var numRows: Int32 = 0
    var definitionLevelsLength: Int32 = 0
    var repetitionLevelsLength: Int32 = 0
    var isCompressed = true
    var sawKindHeader = false

    /// Decodes a header at `position` of `bytes`; returns it and the header's length in bytes.
    static func decode(_ bytes: UnsafeRawBufferPointer, at position: Int) throws(ParquetError) -> (Self, Int) {
        var reader = ThriftCompactReader(bytes, position: position)
        var header = Self()
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); header.type = try r.readI32()
            case 2: try r.expect(type, .i32); header.uncompressedSize = try r.readI32()
            case 3: try r.expect(type, .i32); header.compressedSize = try r.readI32()
            case 5:
                try r.expect(type, .structure)
                try header.decodeDataPageV1(&r)
            case 7:
                try r.expect(type, .structure)
                try header.decodeDictionaryPage(&r)
            case 8:
                try r.expect(type, .structure)
                try header.decodeDataPageV2(&r)
            default: return false
            }
            return true
        }
        guard header.uncompressedSize >= 0, header.compressedSize >= 0 else {
            throw reader.fail("page header without valid sizes")
        }
        return (header, reader.position - position)
    }

    private mutating func decodeDataPageV1(_ reader: inout ThriftCompactReader) throws(ParquetError) {
        sawKindHeader = true
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); numValues = try r.readI32()
            case 2: try r.expect(type, .i32); encoding = try r.readI32()
            case 3: try r.expect(type, .i32); definitionLevelEncoding = try r.readI32()
            default: return false
            }
            return true
        }
    }

    private mutating func decodeDictionaryPage(_ reader: inout ThriftCompactReader) throws(ParquetError) {
        sawKindHeader = true
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); numValues = try r.readI32()
            case 2: try r.expect(type, .i32); encoding = try r.readI32()
            default: return false
            }
            return true
        }
    }

    private mutating func decodeDataPageV2(_ reader: inout ThriftCompactReader) throws(ParquetError) {
        sawKindHeader = true
        try reader.readStruct { (r: inout ThriftCompactReader, id: Int16, type: ThriftType) throws(ParquetError) -> Bool in
            switch id {
            case 1: try r.expect(type, .i32); numValues = try r.readI32()
            case 2: try r.expect(type, .i32); numNulls = try r.readI32()
            case 3: try r.expect(type, .i32); numRows = try r.readI32()
            case 4: try r.expect(type, .i32); encoding = try r.readI32()
            case 5: try r.expect(type, .i32); definitionLevelsLength = try r.readI32()
            case 6: try r.expect(type, .i32); repetitionLevelsLength = try r.readI32()
            case 7: isCompressed = try r.bool(type)
            default: return false
            }
            return true
        }
    }
}
