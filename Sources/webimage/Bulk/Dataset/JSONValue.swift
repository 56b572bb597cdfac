import Foundation

/// A JSON value read from an input row (csv, tsv, json, jsonl) and written into the
/// per-sample JSON, the metadata lines and the stats, the way img2dataset's Python writes
/// them (`json.dumps`): objects keep their key order, `ensure_ascii` escapes, shortest
/// round-trip floats.
indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.int(let x), .int(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        default: false
        }
    }

    /// Any JSON document, through `JSONDecoder`; `nil` when it does not parse.
    init?(parsing data: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        self = value
    }

    /// The text img2dataset writes into `KEY.txt` for a caption: Python's `str(value)`
    /// for the common types; null is empty.
    var captionText: String {
        switch self {
        case .null: ""
        case .string(let s): s
        case .bool(let b): b ? "True" : "False"
        case .int(let i): String(i)
        case .double(let d): Self.pythonFloat(d)
        case .array, .object: compact()
        }
    }

    /// `json.dumps(value, indent=4)`: 4-space indentation, `", "`-free line ends, ASCII only.
    func pretty() -> String {
        var out = ""
        write(into: &out, indent: 0, pretty: true)
        return out
    }

    /// One line, `json.dumps(value)`-style separators (`, ` and `: `), ASCII only.
    func compact() -> String {
        var out = ""
        write(into: &out, indent: 0, pretty: false)
        return out
    }

    private func write(into out: inout String, indent: Int, pretty: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? Self.pythonFloat(d) : (d.isNaN ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"))
        case .string(let s): Self.quote(s, into: &out)
        case .array(let items):
            guard !items.isEmpty else { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += pretty ? "," : ", " }
                if pretty { out += "\n" + String(repeating: " ", count: indent + 4) }
                item.write(into: &out, indent: indent + 4, pretty: pretty)
            }
            if pretty { out += "\n" + String(repeating: " ", count: indent) }
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += pretty ? "," : ", " }
                if pretty { out += "\n" + String(repeating: " ", count: indent + 4) }
                Self.quote(key, into: &out)
                out += ": "
                value.write(into: &out, indent: indent + 4, pretty: pretty)
            }
            if pretty { out += "\n" + String(repeating: " ", count: indent) }
            out += "}"
        }
    }

    /// Python's `repr(float)`: shortest round trip, `1.0` not `1`, exponents as `1e-05`, `1e+16`.
    static func pythonFloat(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e16 { return String(format: "%.1f", d) }
        var text = "\(d)"
        // Swift writes 1e-05 and 1e+16 as Python does; it does not write "1e16" without a sign.
        if let e = text.firstIndex(of: "e"), text.index(after: e) < text.endIndex,
           text[text.index(after: e)] != "-" && text[text.index(after: e)] != "+" {
            text.insert("+", at: text.index(after: e))
        }
        return text
    }

    /// A JSON string with `ensure_ascii`: non-ASCII as `\uXXXX` (surrogate pairs above U+FFFF).
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for unit in s.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default: out += String(format: "\\u%04x", unit)
            }
        }
        out += "\""
    }
}

extension JSONValue: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Objects come back with their keys sorted: `JSONDecoder` does not keep the order.
    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            self = .object(try object.allKeys.map(\.stringValue).sorted().map {
                ($0, try object.decode(JSONValue.self, forKey: Key(stringValue: $0)))
            })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? single.decode(Int.self) {
            self = .int(i)
        } else if let d = try? single.decode(Double.self) {
            self = .double(d)
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}
