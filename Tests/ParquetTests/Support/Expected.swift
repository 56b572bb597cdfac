import Foundation
import Parquet

/// Compares what the reader gives with what Python wrote beside the file (JSON: strings,
/// numbers, booleans, null; binary as `{"hex": "..."}`).
enum Expected {
    /// Every row of `path`'s columns, read row group by row group, as JSON-comparable values.
    static func readAll(_ path: String, columns: [String]? = nil) throws -> (groups: [Int], columns: [String: [ParquetValue]]) {
        let reader = try ParquetFileReader(path: path)
        let names = columns ?? reader.columns.map(\.name)
        var result: [String: [ParquetValue]] = [:]
        var groups: [Int] = []
        for index in 0..<reader.rowGroupCount {
            let group = try reader.readRowGroup(index, columns: names)
            groups.append(group.rowCount)
            for column in group.columns {
                result[column.descriptor.name, default: []] += (0..<group.rowCount).map { column.value(at: $0) }
            }
        }
        for name in names where result[name] == nil { result[name] = [] }
        return (groups, result)
    }

    /// Whether `value` is what `json` says, or why not.
    static func mismatch(_ value: ParquetValue, _ json: Any) -> String? {
        let same: Bool
        switch value {
        case .null: same = json is NSNull
        case let .string(s): same = (json as? String) == s
        case let .binary(b): same = ((json as? [String: Any])?["hex"] as? String) == hex(b)
        case let .int32(i): same = (json as? NSNumber)?.int64Value == Int64(i) && !(json is String)
        case let .int64(i): same = (json as? NSNumber)?.int64Value == i && !(json is String)
        // Through Float: Foundation's JSON parser on Linux does not round-trip every 17-digit double.
        case let .float(f): same = (json as? NSNumber).map { Float($0.doubleValue) } == f
        case let .double(d): same = (json as? NSNumber)?.doubleValue == d
        // The column's type is checked apart (``typeMismatch``): a 0/1 number passing as a bool here is harmless.
        case let .boolean(b): same = (json as? Bool) == b
        }
        return same ? nil : "\(value) where Python wrote \(json)"
    }

    /// Whether the reader's descriptor matches the Arrow type Python named (`string`, `binary`,
    /// `int32`, `int64`, `float`, `double`, `bool`) and nullability, or why not.
    static func typeMismatch(_ descriptor: ParquetColumnDescriptor, arrowType: String, nullable: Bool) -> String? {
        let expected: (ParquetPhysicalType, Bool)? = switch arrowType {
        case "string", "large_string": (.byteArray, true)
        case "binary", "large_binary": (.byteArray, false)
        case "int32": (.int32, false)
        case "int64": (.int64, false)
        case "float": (.float, false)
        case "double": (.double, false)
        case "bool": (.boolean, false)
        default: nil
        }
        guard let expected else { return "\(descriptor.name): unexpected Arrow type \(arrowType)" }
        if descriptor.physicalType != expected.0 || descriptor.isString != expected.1 || descriptor.isOptional != nullable {
            return "\(descriptor.name): \(descriptor.physicalType) string \(descriptor.isString) optional \(descriptor.isOptional), Arrow says \(arrowType) nullable \(nullable)"
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The mismatches between a file read by the reader and Python's JSON of it
    /// (`{"row_groups": [...], "columns": {name: [...]}}`), at most `limit` of them.
    static func compare(_ path: String, with json: [String: Any], limit: Int = 5) throws -> [String] {
        let (groups, columns) = try readAll(path)
        var problems: [String] = []
        if let expectedGroups = json["row_groups"] as? [Int], expectedGroups != groups {
            problems.append("row groups \(groups), Python wrote \(expectedGroups)")
        }
        let expectedColumns = json["columns"] as? [String: [Any]] ?? [:]
        if Set(expectedColumns.keys) != Set(columns.keys) {
            problems.append("columns \(columns.keys.sorted()), Python wrote \(expectedColumns.keys.sorted())")
        }
        for (name, expected) in expectedColumns {
            guard let values = columns[name] else { continue }
            if values.count != expected.count {
                problems.append("\(name): \(values.count) rows, Python wrote \(expected.count)")
                continue
            }
            for (row, (value, json)) in zip(values, expected).enumerated() {
                if let problem = mismatch(value, json) { problems.append("\(name) row \(row): \(problem)") }
                if problems.count >= limit { return problems }
            }
        }
        return problems
    }
}
