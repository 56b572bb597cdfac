/// One column of a file the writer makes: a flat schema's leaf.
public struct ParquetField: Sendable, Equatable {
    /// What the column holds, and how it is stored.
    public enum Kind: Sendable, Equatable {
        /// BYTE_ARRAY with the STRING logical type (UTF8): pandas reads `object` (str), DuckDB `VARCHAR`.
        case string
        /// BYTE_ARRAY without a logical type: pandas reads `bytes`, DuckDB `BLOB`.
        case binary
        case int32, int64, float, double, boolean
    }

    public var name: String
    public var kind: Kind
    /// OPTIONAL (may hold nulls) rather than REQUIRED.
    public var isOptional: Bool

    public init(_ name: String, _ kind: Kind, optional: Bool = true) {
        self.name = name
        self.kind = kind
        isOptional = optional
    }

    var physicalType: ParquetPhysicalType {
        switch kind {
        case .string, .binary: .byteArray
        case .int32: .int32
        case .int64: .int64
        case .float: .float
        case .double: .double
        case .boolean: .boolean
        }
    }
}
