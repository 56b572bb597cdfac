import Parquet

/// `parquet`: the list's row groups read one at a time with only the job's columns
/// (url, caption, additional) projected, so a file of any length costs one row group.
/// Strings and binary values become strings, integers `int`, floats `double`, booleans `bool`.
///
/// **Threads.** Blocking file reads; ``DatasetRowReader`` calls it on its own serial queue only.
struct ParquetRowParser: RowParser {
    private let reader: ParquetFileReader
    private let path: String
    private let columns: InputColumns
    /// The projected columns: url, then the caption if any, then the additional ones.
    private let names: [String]
    private var nextGroup = 0
    private var group: ParquetRowGroup?
    private var row = 0

    /// Opens `path` and checks that the job's columns are there.
    init(path: String, columns: InputColumns) throws(DatasetInputError) {
        guard path != "-" else { throw DatasetInputError("a parquet list is read from a file, not from standard input") }
        let reader: ParquetFileReader
        do throws(ParquetError) {
            reader = try ParquetFileReader(path: path)
        } catch {
            throw DatasetInputError("\(path): \(error)")
        }
        let wanted = [columns.url] + (columns.caption.map { [$0] } ?? []) + columns.additional
        var names: [String] = []
        for name in wanted where !names.contains(name) { names.append(name) }
        if let missing = names.first(where: { reader.column(named: $0) == nil }) {
            let all = reader.columns.map(\.name).joined(separator: ", ")
            throw DatasetInputError("\(path) has no column '\(missing)'; its columns: \(all)")
        }
        self.reader = reader
        self.path = path
        self.columns = columns
        self.names = names
    }

    mutating func next() throws(DatasetInputError) -> InputRow? {
        while row >= group?.rowCount ?? 0 {
            guard nextGroup < reader.rowGroupCount else { return nil }
            do throws(ParquetError) {
                group = try reader.readRowGroup(nextGroup, columns: names)
            } catch {
                throw DatasetInputError("\(path): row group \(nextGroup): \(error)")
            }
            nextGroup += 1
            row = 0
        }
        guard let group else { return nil }
        let current = row
        row += 1
        return ColumnPicker(columns: columns).row { name in
            group.column(name).map { Self.value($0, current) }
        }
    }

    private static func value(_ column: ParquetColumn, _ row: Int) -> JSONValue {
        switch column.value(at: row) {
        case .null: .null
        case let .string(s): .string(s)
        case let .binary(b): .string(String(decoding: b, as: UTF8.self))
        case let .int32(i): .int(Int(i))
        case let .int64(i): .int(Int(i))
        case let .float(f): .double(Double(f))
        case let .double(d): .double(d)
        case let .boolean(b): .bool(b)
        }
    }
}
