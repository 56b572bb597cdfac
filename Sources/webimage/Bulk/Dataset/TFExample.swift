import Foundation

/// A `tf.train.Example` protocol buffer, encoded by hand: `Example { Features features = 1 }`,
/// `Features { map<string, Feature> feature = 1 }`, and `Feature` one of `bytes_list = 1`,
/// `float_list = 2`, `int64_list = 3`, whose values are field 1 (floats and integers packed).
/// Features are written in the order added (protobuf maps have no order; readers do not
/// rely on one); a name added twice keeps its first place and its last value.
struct TFExample {
    enum Feature {
        case bytes([[UInt8]])
        case floats([Float])
        case ints([Int64])
    }

    private(set) var features: [(String, Feature)] = []

    mutating func set(_ name: String, _ feature: Feature) {
        if let i = features.firstIndex(where: { $0.0 == name }) {
            features[i].1 = feature
        } else {
            features.append((name, feature))
        }
    }

    /// img2dataset's feature for a metadata value (its `TFRecordSampleWriter._feature`): an
    /// integer or boolean is an int64, a float a float, a list by its first element's kind,
    /// anything else bytes (text as UTF-8, null as empty bytes; an object as its JSON text).
    static func feature(_ value: JSONValue) -> Feature {
        switch value {
        case .int(let i): return .ints([Int64(i)])
        case .bool(let b): return .ints([b ? 1 : 0])
        case .double(let d): return .floats([Float(d)])
        case .array(let items):
            switch items.first {
            case .int?, .bool?:
                return .ints(items.map {
                    switch $0 {
                    case .int(let i): Int64(i)
                    case .bool(let b): b ? 1 : 0
                    default: 0
                    }
                })
            case .double?:
                return .floats(items.map {
                    switch $0 {
                    case .double(let d): Float(d)
                    case .int(let i): Float(i)
                    default: 0
                    }
                })
            default: return .bytes(items.map(text))
            }
        default: return .bytes([text(value)])
        }
    }

    private static func text(_ value: JSONValue) -> [UInt8] {
        switch value {
        case .null: []
        case .string(let s): Array(s.utf8)
        default: Array(value.captionText.utf8)
        }
    }

    /// The serialized `Example`.
    var serialized: [UInt8] {
        var map: [UInt8] = []
        for (name, feature) in features {
            var entry: [UInt8] = []
            Self.field(1, bytes: Array(name.utf8), into: &entry)
            Self.field(2, bytes: Self.encode(feature), into: &entry)
            Self.field(1, bytes: entry, into: &map)
        }
        var example: [UInt8] = []
        Self.field(1, bytes: map, into: &example)
        return example
    }

    private static func encode(_ feature: Feature) -> [UInt8] {
        var list: [UInt8] = []
        var out: [UInt8] = []
        switch feature {
        case .bytes(let values):
            for value in values { field(1, bytes: value, into: &list) }
            field(1, bytes: list, into: &out)
        case .floats(let values):
            var packed: [UInt8] = []
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { packed += $0 } }
            if !values.isEmpty { field(1, bytes: packed, into: &list) }
            field(2, bytes: list, into: &out)
        case .ints(let values):
            var packed: [UInt8] = []
            for value in values { varint(UInt64(bitPattern: value), into: &packed) }
            if !values.isEmpty { field(1, bytes: packed, into: &list) }
            field(3, bytes: list, into: &out)
        }
        return out
    }

    /// A length-delimited field (wire type 2).
    private static func field(_ number: UInt64, bytes: [UInt8], into out: inout [UInt8]) {
        varint(number << 3 | 2, into: &out)
        varint(UInt64(bytes.count), into: &out)
        out += bytes
    }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
