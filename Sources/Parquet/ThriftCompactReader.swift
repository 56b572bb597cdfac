/// The wire types of Thrift's compact protocol (the low nibble of a field header).
enum ThriftType: UInt8 {
    case stop = 0, boolTrue = 1, boolFalse = 2, byte = 3, i16 = 4, i32 = 5, i64 = 6, double = 7
    case binary = 8, list = 9, set = 10, map = 11, structure = 12
}

/// Reads Thrift's compact protocol from one buffer: parquet's footer and page headers.
///
/// Every read is bounds-checked and throws ``ParquetError/thrift(offset:reason:)``; skipping
/// unknown fields is depth-limited so a hostile file cannot exhaust the stack, and a list's
/// declared length is checked against the bytes left before anything is reserved for it.
struct ThriftCompactReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    private var depth = 0
    static let maxDepth = 32

    init(_ bytes: UnsafeRawBufferPointer, position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    func fail(_ reason: String) -> ParquetError { .thrift(offset: position, reason: reason) }

    var remaining: Int { bytes.count - position }

    mutating func readByte() throws(ParquetError) -> UInt8 {
        guard position < bytes.count else { throw fail("truncated") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readVarint() throws(ParquetError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 64 else { throw fail("varint longer than 10 bytes") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func readI64() throws(ParquetError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func readI32() throws(ParquetError) -> Int32 {
        let value = try readI64()
        guard let narrow = Int32(exactly: value) else { throw fail("i32 value \(value) out of range") }
        return narrow
    }

    /// A length-prefixed binary/string, as a range of the buffer (nothing copied).
    mutating func readBinaryRange() throws(ParquetError) -> Range<Int> {
        let length = try readVarint()
        guard length <= UInt64(remaining) else { throw fail("string of \(length) bytes past the end") }
        let start = position
        position += Int(length)
        return start..<position
    }

    mutating func readString() throws(ParquetError) -> String {
        let range = try readBinaryRange()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A list or set header: the element count (checked against the bytes left: every element
    /// takes at least one byte, bools included) and the element type.
    mutating func readListHeader() throws(ParquetError) -> (count: Int, type: ThriftType) {
        let header = try readByte()
        var count = UInt64(header >> 4)
        if count == 15 { count = try readVarint() }
        guard let type = ThriftType(rawValue: header & 0x0F) else { throw fail("list element type \(header & 0x0F)") }
        guard count <= UInt64(remaining) else { throw fail("list of \(count) elements past the end") }
        return (Int(count), type)
    }

    /// Reads a struct's fields, handing each to `body` with its id and type; `body` returns
    /// false for a field it does not know, which is then skipped.
    mutating func readStruct(
        _ body: (inout ThriftCompactReader, Int16, ThriftType) throws(ParquetError) -> Bool
    ) throws(ParquetError) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail("structures nested deeper than \(Self.maxDepth)") }
        var lastID: Int16 = 0
        while true {
            let header = try readByte()
            guard let type = ThriftType(rawValue: header & 0x0F) else { throw fail("field type \(header & 0x0F)") }
            if type == .stop { return }
            let delta = Int16(header >> 4)
            let id: Int16
            if delta != 0 {
                id = lastID &+ delta
            } else {
                let wide = try readI64()
                guard let narrow = Int16(exactly: wide) else { throw fail("field id \(wide) out of range") }
                id = narrow
            }
            lastID = id
            if try !body(&self, id, type) { try skip(type) }
        }
    }

    /// A struct field's bool, which compact encodes in the field header's type.
    func bool(_ type: ThriftType) throws(ParquetError) -> Bool {
        switch type {
        case .boolTrue: return true
        case .boolFalse: return false
        default: throw fail("expected a bool field, found \(type)")
        }
    }

    /// Checks a known field's wire type before it is read.
    func expect(_ type: ThriftType, _ wanted: ThriftType) throws(ParquetError) {
        guard type == wanted else { throw fail("field of type \(type) where \(wanted) was expected") }
    }

    mutating func skip(_ type: ThriftType) throws(ParquetError) {
        switch type {
        case .stop: throw fail("unexpected stop")
        case .boolTrue, .boolFalse: return
        case .byte: _ = try readByte()
        case .i16, .i32, .i64: _ = try readVarint()
        case .double:
            guard remaining >= 8 else { throw fail("truncated double") }
            position += 8
        case .binary: _ = try readBinaryRange()
        case .list, .set:
            let (count, elementType) = try readListHeader()
            try nested { (r: inout ThriftCompactReader) throws(ParquetError) in
                for _ in 0..<count { try r.skipElement(elementType) }
            }
        case .map:
            let count = try readVarint()
            guard count <= UInt64(remaining) else { throw fail("map of \(count) entries past the end") }
            if count == 0 { return }
            let types = try readByte()
            guard let keyType = ThriftType(rawValue: types >> 4), let valueType = ThriftType(rawValue: types & 0x0F)
            else { throw fail("map entry types \(types)") }
            try nested { (r: inout ThriftCompactReader) throws(ParquetError) in
                for _ in 0..<count {
                    try r.skipElement(keyType)
                    try r.skipElement(valueType)
                }
            }
        case .structure:
            try readStruct { _, _, _ in false }
        }
    }

    /// Inside lists and maps a bool is a whole byte.
    private mutating func skipElement(_ type: ThriftType) throws(ParquetError) {
        if type == .boolTrue || type == .boolFalse { _ = try readByte() } else { try skip(type) }
    }

    private mutating func nested(_ body: (inout ThriftCompactReader) throws(ParquetError) -> Void) throws(ParquetError) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail("structures nested deeper than \(Self.maxDepth)") }
        try body(&self)
    }

    /// Reads a list of `T`, each element by `element` (after checking the element type).
    mutating func readList<T>(
        of wanted: ThriftType,
        _ element: (inout ThriftCompactReader) throws(ParquetError) -> T
    ) throws(ParquetError) -> [T] {
        let (count, type) = try readListHeader()
        guard type == wanted || count == 0 else { throw fail("list of \(type) where \(wanted) was expected") }
        var result: [T] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(try element(&self)) }
        return result
    }
}
