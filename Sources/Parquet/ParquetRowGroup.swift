/// The projected columns of one row group, decoded (``ParquetFileReader/readRowGroup(_:columns:)``).
public struct ParquetRowGroup: Sendable {
    /// The row group's rows; every column has this many.
    public let rowCount: Int
    /// The columns, in the order they were asked for.
    public let columns: [ParquetColumn]

    /// The column named `name`, if it was projected.
    public func column(_ name: String) -> ParquetColumn? { columns.first { $0.descriptor.name == name } }
}
