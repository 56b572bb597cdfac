/// One cell of a parquet table, as the writer takes it and the reader can give it.
public enum ParquetValue: Sendable, Equatable {
    case null
    case string(String)
    case binary([UInt8])
    case int32(Int32)
    case int64(Int64)
    case float(Float)
    case double(Double)
    case boolean(Bool)
}
