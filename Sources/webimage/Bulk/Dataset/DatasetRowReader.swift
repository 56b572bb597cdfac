import Dispatch
import Foundation

/// Reads the job's list (one file, `-` for standard input, or a folder of files) as
/// the job goes, in batches of ``batchSize`` rows, so a list of any length costs one
/// batch of rows and one parser's buffer.
///
/// A folder is read as img2dataset reads one: its files whose names end in
/// `.<input-format>` (not recursively), in the order of their paths, and every file
/// starts a new shard (``Item/fileEnd`` marks the boundary).
///
/// **Threads.** Opening and parsing block (`gzread`, a pipe): they run on the reader's
/// own serial queue, never on the cooperative pool.
final class DatasetRowReader: @unchecked Sendable {  // one caller of next() at a time; parser only on `queue`

    enum Item: Sendable {
        case row(InputRow)
        /// The end of one input file (its last shard is complete).
        case fileEnd
    }

    static let batchSize = 256

    private let files: [String]
    private let format: InputFormat
    private let columns: InputColumns
    private let spelling: DatasetPlan.OptionSpelling
    private let queue = DispatchQueue(label: "webimage.bulk.rows")
    private var fileIndex = 0
    private var parser: (any RowParser)?
    private var batch: [Item] = []
    private var batchStart = 0
    /// A read error held back until the rows read before it are handed over.
    private var deferredError: DatasetInputError?

    /// Lists the input files of `path`; throws when there are none or it cannot be read.
    init(path: String, formatName: String, format: InputFormat, columns: InputColumns,
         spelling: DatasetPlan.OptionSpelling = .fetch) throws(DatasetInputError) {
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let suffix = "." + formatName.lowercased()
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw DatasetInputError("cannot list \(path): \(error.localizedDescription)")
            }
            files = names.filter { $0.lowercased().hasSuffix(suffix) }
                .map { (path as NSString).appendingPathComponent($0) }.sorted()
            guard !files.isEmpty else { throw DatasetInputError("No file found at path \(path) with extension \(formatName)") }
        } else {
            files = [path]
        }
        self.format = format
        self.columns = columns
        self.spelling = spelling
    }

    /// Opens the first file now, so a missing file or column is a usage error before any download.
    func open() async throws(DatasetInputError) {
        let result: Result<Void, DatasetInputError> = await onQueue {
            do throws(DatasetInputError) {
                self.parser = try self.makeParser(self.files[0])
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The next row or file boundary; `nil` after the last file's boundary.
    func next() async throws(DatasetInputError) -> Item? {
        if batchStart == batch.count {
            let result: Result<[Item], DatasetInputError> = await onQueue {
                do throws(DatasetInputError) {
                    return .success(try self.readBatch())
                } catch {
                    return .failure(error)
                }
            }
            batch = try result.get()
            batchStart = 0
            if batch.isEmpty { return nil }
        }
        defer { batchStart += 1 }
        return batch[batchStart]
    }

    /// Up to ``batchSize`` items; empty at the very end. On `queue` only.
    ///
    /// A read error after some rows of the batch hands those rows over first and is thrown
    /// by the next call, so the shards they complete are written before the job stops.
    private func readBatch() throws(DatasetInputError) -> [Item] {
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        var items: [Item] = []
        while items.count < Self.batchSize, fileIndex < files.count {
            do throws(DatasetInputError) {
                if parser == nil { parser = try makeParser(files[fileIndex]) }
                if let row = try parser?.next() {
                    items.append(.row(row))
                } else {
                    parser = nil
                    fileIndex += 1
                    items.append(.fileEnd)
                }
            } catch {
                guard !items.isEmpty else { throw error }
                deferredError = error
                fileIndex = files.count
                return items
            }
        }
        return items
    }

    private func makeParser(_ path: String) throws(DatasetInputError) -> any RowParser {
        // Parquet is read by offsets from its footer: a file, not a zlib stream.
        if format == .parquet { return try ParquetRowParser(path: path, columns: columns) }
        try checkIsText(path)
        let file = try GzipFile(path: path)
        let picker = ColumnPicker(columns: columns)
        switch format {
        case .txt: return TextRowParser(lines: LineSplitter(file: file), captionColumn: columns.caption)
        case .jsonl: return JSONLinesRowParser(lines: LineSplitter(file: file), picker: picker)
        case .json:
            // pandas.read_json's two default readings: an array of records, or an object
            // of columns (DataFrame.to_json()'s default).
            var head: [UInt8] = []
            var chunk = try file.read()
            while !chunk.isEmpty {
                head += chunk
                if head.contains(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) { break }
                chunk = try file.read()
            }
            if head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "{") {
                return try JSONColumnsRowParser(file: file, prefix: head, picker: picker)
            }
            return JSONArrayRowParser(splitter: JSONArraySplitter(file: file, prefix: head), picker: picker)
        case .csv: return try CSVRowParser(file: file, delimiter: ",", columns: columns)
        case .tsv: return try CSVRowParser(file: file, delimiter: "\t", columns: columns)
        case .parquet: return try ParquetRowParser(path: path, columns: columns)
        }
    }

    /// Refuses a file a text format cannot be: parquet (its `PAR1` magic) or other binary
    /// data (a NUL byte in its first 4 KB, gzip excepted), before any row is read, so no
    /// bytes of it are taken for URLs or printed. Standard input is not looked at.
    private func checkIsText(_ path: String) throws(DatasetInputError) {
        guard path != "-", let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
        let name = (path as NSString).lastPathComponent
        if head.starts(with: Array("PAR1".utf8)) {
            throw DatasetInputError("\(name) is a parquet file (it starts with PAR1), not \(format.rawValue): "
                + "give \(spelling("input_format", "parquet"))")
        }
        if !head.starts(with: [0x1F, 0x8B]), head.contains(0) {
            throw DatasetInputError("\(name) is not a \(format.rawValue) list: it holds binary data (a NUL byte in its "
                + "first \(head.count) bytes); give \(spelling("input_format")) the list's format (\(spelling.helpCommand))")
        }
    }

    /// Runs `work` on the reader's queue and returns its result.
    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () -> Result<T, DatasetInputError>) async -> Result<T, DatasetInputError> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
