import Foundation
import WebImage

/// One line of `--json` output: keys in insertion order, as the design's contract shows them.
struct JSONLine {
    private var fields: [(String, String)] = []

    mutating func add(_ key: String, _ value: String) { fields.append((key, Self.quote(value))) }
    mutating func add(_ key: String, _ value: Int) { fields.append((key, String(value))) }
    mutating func add(_ key: String, _ value: Bool) { fields.append((key, value ? "true" : "false")) }
    mutating func add(_ key: String, milliseconds: Double) {
        fields.append((key, String(format: "%.1f", milliseconds)))
    }
    mutating func add(_ key: String, object: JSONLine) { fields.append((key, object.text)) }

    /// The error object scripts read: code, stable name and message.
    static func error(_ error: any Error) -> JSONLine {
        let e = CommandError.webImageError(error)
        var line = JSONLine()
        line.add("code", e.code.rawValue)
        line.add("name", e.code.name)
        line.add("message", e.message)
        return line
    }

    var text: String { "{" + fields.map { "\(Self.quote($0.0)):\($0.1)" }.joined(separator: ",") + "}" }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
