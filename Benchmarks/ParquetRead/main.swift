import Dispatch
import Foundation
import Parquet

// The parquet reader's throughput on one core (Benchmarks/ParquetRead/run.sh): the projected
// columns of every row group decoded, and every value's bytes touched in place (`bytes`), or
// also made into a Swift String each (`strings`). Best of five passes over the file.
let arguments = CommandLine.arguments
guard arguments.count >= 4, ["bytes", "strings"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: parquet-read bytes|strings FILE COLUMN...\n".utf8))
    exit(2)
}
let mode = arguments[1], path = arguments[2], columns = Array(arguments.dropFirst(3))
do {
    let reader = try ParquetFileReader(path: path)
    var best = Double.infinity
    var rows = 0, total = 0
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        rows = 0
        total = 0
        for index in 0..<reader.rowGroupCount {
            let group = try reader.readRowGroup(index, columns: columns)
            for column in group.columns {
                for row in 0..<group.rowCount {
                    if mode == "strings" {
                        total &+= column.string(at: row)?.utf8.count ?? 0
                    } else {
                        total &+= column.withBytes(at: row) { $0.count } ?? 0
                    }
                }
            }
            rows += group.rowCount
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    print(String(format: "%@ %@: %d rows in %.3f s: %.2f M rows/s (%d value bytes)",
                 (path as NSString).lastPathComponent, mode, rows, best, Double(rows) / best / 1e6, total))
} catch {
    FileHandle.standardError.write(Data("parquet-read: \(error)\n".utf8))
    exit(1)
}
