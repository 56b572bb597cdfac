/// A column's physical type, as parquet stores it.
public enum ParquetPhysicalType: Int32, Sendable, Equatable {
    case boolean = 0, int32 = 1, int64 = 2, int96 = 3, float = 4, double = 5, byteArray = 6, fixedLenByteArray = 7
}

/// A page's compression.
public enum ParquetCompression: Int32, Sendable, Equatable, CustomStringConvertible {
    case uncompressed = 0, snappy = 1, gzip = 2, lzo = 3, brotli = 4, lz4 = 5, zstd = 6, lz4Raw = 7

    public var description: String {
        switch self {
        case .uncompressed: "UNCOMPRESSED"
        case .snappy: "SNAPPY"
        case .gzip: "GZIP"
        case .lzo: "LZO"
        case .brotli: "BROTLI"
        case .lz4: "LZ4"
        case .zstd: "ZSTD"
        case .lz4Raw: "LZ4_RAW"
        }
    }
}

/// The value encodings of parquet's format (those with a number there).
enum ParquetEncoding: Int32 {
    case plain = 0, plainDictionary = 2, rle = 3, bitPacked = 4, deltaBinaryPacked = 5
    case deltaLengthByteArray = 6, deltaByteArray = 7, rleDictionary = 8, byteStreamSplit = 9
}

/// The kinds of page a column chunk holds.
enum ParquetPageType: Int32 {
    case dataPage = 0, indexPage = 1, dictionaryPage = 2, dataPageV2 = 3
}
