import Foundation
import Parquet

/// The parquet reader under fuzzing: the input as a file, read through every row group and
/// value. A ``ParquetError`` is a correct answer; the limits are lowered so that a file
/// declaring huge sizes is refused fast instead of filling the fuzzer's memory limit.
enum FuzzParquet {
    static let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("webimage-fuzz-parquet-\(getpid()).parquet").path

    static let limits: ParquetFileReader.Limits = {
        var limits = ParquetFileReader.Limits()
        limits.maxFooterSize = 1 << 20
        limits.maxPageSize = 16 << 20
        limits.maxColumnChunkSize = 16 << 20
        limits.maxRowsPerRowGroup = 1 << 20
        return limits
    }()

    static func run(_ data: Data) {
        guard FileManager.default.createFile(atPath: path, contents: data) else { return }
        guard let reader = try? ParquetFileReader(path: path, limits: limits) else { return }
        let names = reader.columns.map(\.name)
        for index in 0..<reader.rowGroupCount {
            guard let group = try? reader.readRowGroup(index, columns: names) else { continue }
            for column in group.columns {
                for row in 0..<group.rowCount { _ = column.value(at: row) }
            }
        }
    }
}
