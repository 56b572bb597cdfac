import Foundation

/// `json` written by `DataFrame.to_json()` (pandas' default, "columns" orientation):
/// `{"url": {"0": "…", "1": "…"}, "caption": {"0": "…", …}}`. Read whole, as pandas reads it
/// (the object has no row order until every column is read). Rows follow the index labels,
/// in numeric order when they are all integers (pandas' default index), else in text order;
/// a label missing from a column is null there.
struct JSONColumnsRowParser: RowParser {
    /// Larger files are refused: the whole object is held in memory.
    static let maxBytes = 4 << 30

    private let columns: [String: [String: JSONValue]]
    private let labels: [String]
    private let picker: ColumnPicker
    private var position = 0

    init(file: GzipFile, prefix: [UInt8], picker: ColumnPicker) throws(DatasetInputError) {
        var bytes = prefix
        var chunk = try file.read()
        while !chunk.isEmpty {
            bytes += chunk
            guard bytes.count <= Self.maxBytes else {
                throw DatasetInputError("\(file.path): a column-oriented JSON list over \(Self.maxBytes >> 30) GiB; "
                    + "write it as records (to_json(orient=\"records\", lines=True)) and read it as jsonl")
            }
            chunk = try file.read()
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard case .object(let members)? = JSONValue(parsing: Data(bytes)) else {
            throw DatasetInputError("\(file.path) is not JSON: an array of objects or an object of columns is needed")
        }
        var columns: [String: [String: JSONValue]] = [:]
        var labelSet = Set<String>()
        for (name, column) in members {
            guard case .object(let cells) = column else {
                throw DatasetInputError("\(file.path): column '\(name)' is not an object of index → value")
            }
            var values: [String: JSONValue] = [:]
            for (label, value) in cells {
                values[label] = value
                labelSet.insert(label)
            }
            columns[name] = values
        }
        let wanted = [picker.columns.url] + (picker.columns.caption.map { [$0] } ?? []) + picker.columns.additional
        if let missing = wanted.first(where: { columns[$0] == nil }), !members.isEmpty {
            throw DatasetInputError("\(file.path) has no column '\(missing)'; its columns: "
                + members.map(\.0).joined(separator: ", "))
        }
        self.columns = columns
        if labelSet.allSatisfy({ Int($0) != nil }) {
            labels = labelSet.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
        } else {
            labels = labelSet.sorted()
        }
        self.picker = picker
    }

    mutating func next() throws(DatasetInputError) -> InputRow? {
        guard position < labels.count else { return nil }
        let label = labels[position]
        position += 1
        return picker.row { name in columns[name].map { $0[label] ?? .null } }
    }
}
