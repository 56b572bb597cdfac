import Foundation
import Parquet
import Testing

/// Truncated and corrupted files: every one must end in a ``ParquetError`` (or, for a flipped
/// byte the format cannot notice, in values), never in a crash, a trap or a runaway allocation.
@Suite("Parquet reader: truncated and corrupt files", .serialized, .timeLimit(.minutes(2)))
struct ParquetCorruptionTests {
    static let files = #"""
        import pyarrow as pa, pyarrow.parquet as pq
        n = 24
        t = pa.table({"url": [None if i % 5 == 0 else f"https://e.com/{i % 4}.jpg" for i in range(n)],
                      "n": pa.array([None if i % 3 == 0 else i * 1000 for i in range(n)], pa.int64()),
                      "f": pa.array([i / 3 for i in range(n)], pa.float32()),
                      "ok": [i % 2 == 0 for i in range(n)]})
        pq.write_table(t, "snappy-dict-v1.parquet", compression="snappy", row_group_size=10)
        pq.write_table(t, "zstd-plain-v2.parquet", compression="zstd", use_dictionary=False, data_page_version="2.0", row_group_size=10)
        pq.write_table(t, "gzip-dict-v2.parquet", compression="gzip", data_page_version="2.0")
        pq.write_table(t, "none-plain-v1.parquet", compression="none", use_dictionary=False)
        pq.write_table(t, "none-delta-v2.parquet", compression="none", use_dictionary=False, data_page_version="2.0",
                       column_encoding={"url": "DELTA_BYTE_ARRAY", "n": "DELTA_BINARY_PACKED", "f": "BYTE_STREAM_SPLIT"})
        """#

    static let names = ["snappy-dict-v1.parquet", "zstd-plain-v2.parquet", "gzip-dict-v2.parquet", "none-plain-v1.parquet",
                         "none-delta-v2.parquet"]

    /// Reads every row group and every value; the error if any.
    static func readEverything(_ path: String) -> ParquetError? {
        do throws(ParquetError) {
            let reader = try ParquetFileReader(path: path)
            for index in 0..<reader.rowGroupCount {
                let group = try reader.readRowGroup(index, columns: reader.columns.map(\.name))
                for column in group.columns {
                    for row in 0..<group.rowCount { _ = column.value(at: row) }
                }
            }
            return nil
        } catch {
            return error
        }
    }

    @Test("A file cut at any byte is an error", arguments: names)
    func truncated(name: String) throws {
        let folder = try TemporaryFolder()
        _ = try PythonVenv.run(Self.files, in: folder.url)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path(name)))
        #expect(Self.readEverything(folder.path(name)) == nil, "the intact file reads")
        let cut = folder.path("cut.parquet")
        for length in 0..<bytes.count {
            try bytes.prefix(length).write(to: URL(fileURLWithPath: cut))
            #expect(Self.readEverything(cut) != nil, "\(name) cut to \(length) of \(bytes.count) bytes read without error")
        }
    }

    @Test("A flipped byte anywhere is an error or other values, never a crash", arguments: names)
    func flipped(name: String) throws {
        let folder = try TemporaryFolder()
        _ = try PythonVenv.run(Self.files, in: folder.url)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder.path(name)))
        let bad = folder.path("bad.parquet")
        var errors = 0
        // Every byte inverted; every third one also with only its low bit flipped (kept short: the suite runs debug builds).
        for position in 0..<bytes.count {
            for mask: UInt8 in position % 3 == 0 ? [0xFF, 0x01] : [0xFF] {
                var copy = bytes
                copy[position] ^= mask
                try copy.write(to: URL(fileURLWithPath: bad))
                if Self.readEverything(bad) != nil { errors += 1 }
            }
        }
        // Many flips land in sizes, offsets, headers or compressed data and must be caught.
        #expect(errors > bytes.count / 4, "\(errors) errors for \(bytes.count * 4 / 3) flips")
    }

    @Test("The typed errors name what is wrong")
    func namedErrors() throws {
        let folder = try TemporaryFolder()
        _ = try PythonVenv.run(Self.files, in: folder.url)
        let good = try Data(contentsOf: URL(fileURLWithPath: folder.path(Self.names[0])))
        let path = folder.path("x.parquet")
        func read(_ data: Data) throws -> ParquetError? {
            try data.write(to: URL(fileURLWithPath: path))
            return Self.readEverything(path)
        }
        #expect(try read(Data()) == .fileTooSmall(size: 0))
        var header = good
        header[0] = UInt8(ascii: "Q")
        #expect(try read(header) == .badMagic(where: "header"))
        var footer = good
        footer[footer.count - 1] = 0
        #expect(try read(footer) == .badMagic(where: "footer"))
        var length = good
        length.replaceSubrange(length.count - 8..<length.count - 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(try read(length) == .footerLengthPastFile(footerLength: 0x7FFF_FFFF, fileSize: good.count))
        #expect(ParquetError.badMagic(where: "footer").description == "not a parquet file: no PAR1 magic in the footer")
        #expect(throws: ParquetError.io(operation: "open", path: folder.path("missing"), errno: ENOENT)) {
            try ParquetFileReader(path: folder.path("missing"))
        }
    }
}
