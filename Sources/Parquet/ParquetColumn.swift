/// One column of one row group, decoded: its values in one buffer per kind and, per row, which
/// value it holds (or none, for a null).
///
/// Byte-array values stay where their pages were decompressed (or read, for uncompressed
/// chunks): reading them allocates nothing until a caller asks for a `String` (``string(at:)``)
/// or a copy (``bytes(at:)``); ``withBytes(at:_:)`` lends them in place.
public struct ParquetColumn: Sendable {
    public let descriptor: ParquetColumnDescriptor
    /// Per row, the index of its value in ``values``; -1 for a null. Dictionary-encoded pages
    /// point into the dictionary (the first values), plain pages at the values they appended.
    let slots: [Int32]
    /// Byte-array values: value `i` is `lengths[i]` bytes at `starts[i]` in `heap`. Stored
    /// apart from ``values`` so reading one costs no reference counting.
    let heap: ByteHeap
    let starts: [Int]
    let lengths: [UInt32]
    let values: Values

    enum Values: Sendable {
        /// In ``heap``, ``starts`` and ``lengths``.
        case bytes
        case int32([Int32])
        case int64([Int64])
        case float([Float])
        case double([Double])
        case boolean([Bool])
    }

    init(descriptor: ParquetColumnDescriptor, slots: [Int32], heap: ByteHeap, starts: [Int], lengths: [UInt32], values: Values) {
        self.descriptor = descriptor
        self.slots = slots
        self.heap = heap
        self.starts = starts
        self.lengths = lengths
        self.values = values
    }

    /// A column of no rows.
    init(empty descriptor: ParquetColumnDescriptor) {
        self.descriptor = descriptor
        slots = []
        heap = ByteHeap(capacity: 0)
        starts = []
        lengths = []
        values = switch descriptor.physicalType {
        case .int32: .int32([])
        case .int64: .int64([])
        case .float: .float([])
        case .double: .double([])
        case .boolean: .boolean([])
        case .byteArray, .int96, .fixedLenByteArray: .bytes
        }
    }

    /// The number of rows.
    public var count: Int { slots.count }

    public func isNull(_ row: Int) -> Bool { slots[row] < 0 }

    /// Calls `body` with the row's bytes (a byte-array column) in place, valid during the call;
    /// nil for a null or another type.
    @inlinable
    public func withBytes<R>(at row: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard let bytes = rawBytes(at: row) else { return nil }
        return try withExtendedLifetime(self) { try body(bytes) }
    }

    /// The row's bytes, copied; nil for a null or a non-byte-array column.
    public func bytes(at row: Int) -> [UInt8]? { rawBytes(at: row).map { Array($0) } }

    /// The row's bytes decoded as UTF-8 (invalid sequences repaired); nil for a null or a non-byte-array column.
    public func string(at row: Int) -> String? {
        guard let bytes = rawBytes(at: row) else { return nil }
        return withExtendedLifetime(self) { String(decoding: bytes, as: UTF8.self) }
    }

    /// The row's bytes in the heap, which lives as long as this column.
    @usableFromInline
    func rawBytes(at row: Int) -> UnsafeRawBufferPointer? {
        let slot = Int(slots[row])
        guard slot >= 0, slot < starts.count else { return nil }
        return UnsafeRawBufferPointer(start: heap.base + starts[slot], count: Int(lengths[slot]))
    }

    /// The row's integer (INT32 or INT64 columns); nil for a null or another type.
    public func int64(at row: Int) -> Int64? {
        let slot = Int(slots[row])
        guard slot >= 0 else { return nil }
        switch values {
        case let .int32(v): return Int64(v[slot])
        case let .int64(v): return v[slot]
        default: return nil
        }
    }

    /// The row's number (FLOAT, DOUBLE, INT32 or INT64 columns); nil for a null or another type.
    public func double(at row: Int) -> Double? {
        let slot = Int(slots[row])
        guard slot >= 0 else { return nil }
        switch values {
        case let .float(v): return Double(v[slot])
        case let .double(v): return v[slot]
        case let .int32(v): return Double(v[slot])
        case let .int64(v): return Double(v[slot])
        default: return nil
        }
    }

    /// The row's boolean; nil for a null or another type.
    public func bool(at row: Int) -> Bool? {
        let slot = Int(slots[row])
        guard slot >= 0, case let .boolean(v) = values else { return nil }
        return v[slot]
    }

    /// The row's value in the column's own type: `.string` for a column the file marks as UTF-8,
    /// `.binary` for other byte arrays.
    public func value(at row: Int) -> ParquetValue {
        let slot = Int(slots[row])
        guard slot >= 0 else { return .null }
        switch values {
        case .bytes:
            guard let bytes = rawBytes(at: row) else { return .null }
            return withExtendedLifetime(self) {
                descriptor.isString ? .string(String(decoding: bytes, as: UTF8.self)) : .binary(Array(bytes))
            }
        case let .int32(v): return .int32(v[slot])
        case let .int64(v): return .int64(v[slot])
        case let .float(v): return .float(v[slot])
        case let .double(v): return .double(v[slot])
        case let .boolean(v): return .boolean(v[slot])
        }
    }
}
