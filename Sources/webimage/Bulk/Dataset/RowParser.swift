import CSV
import Foundation

/// Turns a list file into ``InputRow``s, one call at a time.
///
/// **Threads.** Blocking: ``DatasetRowReader`` calls it on its own serial queue only.
protocol RowParser {
    mutating func next() throws(DatasetInputError) -> InputRow?
}

/// `txt`: each line is a URL, kept as written (img2dataset keeps spaces too); empty lines
/// are skipped and take no key; a UTF-8 byte order mark on the first line is dropped.
struct TextRowParser: RowParser {
    var lines: LineSplitter
    let captionColumn: String?

    mutating func next() throws(DatasetInputError) -> InputRow? {
        while let line = try lines.next() {
            var bytes = line
            if lines.lineNumber == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            guard !bytes.isEmpty else { continue }
            // img2dataset writes an empty caption for txt lists when a caption column is named.
            return InputRow(url: .string(String(decoding: bytes, as: UTF8.self)),
                            caption: captionColumn == nil ? nil : .null, additional: [], isCaptionAColumn: false)
        }
        return nil
    }
}

/// Picks the job's columns out of one record (a JSON object, or a CSV row by header name).
struct ColumnPicker {
    let columns: InputColumns

    func row(_ value: (String) -> JSONValue?) -> InputRow {
        InputRow(url: value(columns.url) ?? .null,
                 caption: columns.caption.map { value($0) ?? .null },
                 additional: columns.additional.map { ($0, value($0) ?? .null) },
                 boxes: columns.boxes.map { value($0) ?? .null },
                 expectedHash: columns.verifyHash.map { value($0) ?? .null })
    }
}

/// `jsonl`: one JSON object per line; blank lines skipped; a key missing from a row is null.
struct JSONLinesRowParser: RowParser {
    var lines: LineSplitter
    let picker: ColumnPicker

    mutating func next() throws(DatasetInputError) -> InputRow? {
        while let line = try lines.next() {
            guard line.contains(where: { $0 != 32 && $0 != 9 }) else { continue }
            guard case .object(let members)? = JSONValue(parsing: Data(line)) else {
                throw DatasetInputError("line \(lines.lineNumber) is not a JSON object")
            }
            return picker.row { name in members.first { $0.0 == name }?.1 }
        }
        return nil
    }
}

/// `csv` and `tsv`: RFC 4180 records with a header row, parsed by CSV.swift from a pipe
/// that ``GzipFile`` fills (so gzip and plain files read the same way). Values are strings:
/// img2dataset's pyarrow guesses column types from the whole file, which a stream cannot.
struct CSVRowParser: RowParser {
    private let reader: CSVReader
    private let indices: [String: Int]
    private let width: Int
    private let picker: ColumnPicker
    private let pump: PipePump
    private var rowNumber = 1

    init(file: GzipFile, delimiter: UnicodeScalar, columns: InputColumns) throws(DatasetInputError) {
        pump = try PipePump(file: file)
        let stream = InputStream(fileAtPath: "/dev/fd/\(pump.readDescriptor)")
        guard let stream else { throw DatasetInputError("cannot read \(file.path)") }
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true, trimFields: false, delimiter: delimiter)
        } catch {
            throw DatasetInputError("cannot read \(file.path): \(error)")
        }
        guard let header = reader.headerRow, !(header.count == 1 && header[0].isEmpty) else {
            throw DatasetInputError("\(file.path) is empty: a header row is needed")
        }
        var indices: [String: Int] = [:]
        for (i, name) in header.enumerated() where indices[name] == nil { indices[name] = i }
        let wanted = [columns.url] + (columns.caption.map { [$0] } ?? []) + columns.additional
            + (columns.verifyHash.map { [$0] } ?? [])
        if let missing = wanted.first(where: { indices[$0] == nil }) {
            throw DatasetInputError("\(file.path) has no column '\(missing)'; its columns: \(header.joined(separator: ", "))")
        }
        self.indices = indices
        width = header.count
        picker = ColumnPicker(columns: columns)
    }

    mutating func next() throws(DatasetInputError) -> InputRow? {
        while let fields = reader.next() {
            rowNumber += 1
            // A blank line reads as one empty field; pyarrow skips it.
            if fields.count == 1 && fields[0].isEmpty && width > 1 { continue }
            guard fields.count == width else {
                throw DatasetInputError("record \(rowNumber): expected \(width) columns, got \(fields.count)")
            }
            return picker.row { name in indices[name].map { .string(fields[$0]) } }
        }
        if let error = pump.error { throw error }
        // On a pipe, CSV.swift learns of the end by a read of 0 bytes, which it reports as
        // `cannotReadFile` (on a plain file it checks first and says nothing): that is the end.
        if let error = reader.error {
            if case CSVError.cannotReadFile? = error as? CSVError { return nil }
            throw DatasetInputError("record \(rowNumber + 1): \(error)")
        }
        return nil
    }
}

/// `json`: one array of objects, read element by element: ``JSONArraySplitter`` finds each
/// element's bytes, `JSONDecoder` parses it.
struct JSONArrayRowParser: RowParser {
    var splitter: JSONArraySplitter
    let picker: ColumnPicker

    mutating func next() throws(DatasetInputError) -> InputRow? {
        guard let element = try splitter.next() else { return nil }
        guard case .object(let members)? = JSONValue(parsing: Data(element)) else {
            throw DatasetInputError("element \(splitter.count) of the JSON array is not an object")
        }
        return picker.row { name in members.first { $0.0 == name }?.1 }
    }
}
