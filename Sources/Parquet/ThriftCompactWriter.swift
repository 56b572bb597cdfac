/// Writes Thrift's compact protocol: the writer's page headers and footer.
struct ThriftCompactWriter {
    private(set) var bytes: [UInt8] = []
    /// The last field id of each open struct (compact encodes field ids as deltas).
    private var lastIDs: [Int16] = [0]

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func zigzag(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    private mutating func fieldHeader(_ id: Int16, _ type: ThriftType) {
        let last = lastIDs[lastIDs.count - 1]
        let delta = Int(id) - Int(last)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            zigzag(Int64(id))
        }
        lastIDs[lastIDs.count - 1] = id
    }

    mutating func i32(_ id: Int16, _ value: Int32) {
        fieldHeader(id, .i32)
        zigzag(Int64(value))
    }

    mutating func i64(_ id: Int16, _ value: Int64) {
        fieldHeader(id, .i64)
        zigzag(value)
    }

    mutating func i16(_ id: Int16, _ value: Int16) {
        fieldHeader(id, .i16)
        zigzag(Int64(value))
    }

    mutating func string(_ id: Int16, _ value: String) {
        fieldHeader(id, .binary)
        binaryValue(Array(value.utf8))
    }

    private mutating func binaryValue(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A struct field: `body` writes its fields.
    mutating func structure(_ id: Int16, _ body: (inout ThriftCompactWriter) -> Void) {
        fieldHeader(id, .structure)
        structBody(body)
    }

    /// A struct's fields and its stop byte (a top-level struct, or a list element).
    mutating func structBody(_ body: (inout ThriftCompactWriter) -> Void) {
        lastIDs.append(0)
        body(&self)
        bytes.append(ThriftType.stop.rawValue)
        lastIDs.removeLast()
    }

    private mutating func listHeader(_ id: Int16, count: Int, of type: ThriftType) {
        fieldHeader(id, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | type.rawValue)
        } else {
            bytes.append(0xF0 | type.rawValue)
            varint(UInt64(count))
        }
    }

    mutating func list<T>(_ id: Int16, of elements: [T], _ body: (inout ThriftCompactWriter, T) -> Void) {
        listHeader(id, count: elements.count, of: .structure)
        for element in elements { structBody { body(&$0, element) } }
    }

    mutating func i32List(_ id: Int16, _ values: [Int32]) {
        listHeader(id, count: values.count, of: .i32)
        for value in values { zigzag(Int64(value)) }
    }

    mutating func stringList(_ id: Int16, _ values: [String]) {
        listHeader(id, count: values.count, of: .binary)
        for value in values { binaryValue(Array(value.utf8)) }
    }
}
