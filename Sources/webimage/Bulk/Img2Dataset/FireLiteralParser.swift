/// The subset of Python's literal grammar Fire's parse accepts: numbers (with a sign,
/// `_` separators, exponents), quoted strings with the common escapes, `True`, `False`,
/// `None`, bare identifiers (as strings), and lists and tuples of those, including a bare
/// `a,b` tuple. Anything else (a path, `1+2`, unbalanced brackets) makes ``parseTop()``
/// return `nil`, and the caller keeps the text.
struct FireLiteralParser {
    private let bytes: [UInt8]
    private var i = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseTop() -> FireValue? {
        skipSpaces()
        guard i < bytes.count else { return nil }  // an empty value is the empty string
        guard let first = parseValue() else { return nil }
        skipSpaces()
        if i == bytes.count { return first }
        // `a,b` and `a,` are tuples.
        var items = [first]
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
            skipSpaces()
            if i == bytes.count { break }
            guard let next = parseValue() else { return nil }
            items.append(next)
            skipSpaces()
        }
        return .list(items)
    }

    private mutating func skipSpaces() {
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 { i += 1 }
    }

    private mutating func parseValue() -> FireValue? {
        skipSpaces()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "["): return parseSequence(close: UInt8(ascii: "]"))
        case UInt8(ascii: "("): return parseSequence(close: UInt8(ascii: ")"))
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return parseString()
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return parseNumber()
        default: return parseName()
        }
    }

    private mutating func parseSequence(close: UInt8) -> FireValue? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 64 else { return nil }
        i += 1
        var items: [FireValue] = []
        var sawComma = false
        while true {
            skipSpaces()
            guard i < bytes.count else { return nil }
            if bytes[i] == close {
                i += 1
                // `(x)` is x itself, `(x,)` a tuple.
                if close == UInt8(ascii: ")"), items.count == 1, !sawComma { return items[0] }
                return .list(items)
            }
            guard let item = parseValue() else { return nil }
            items.append(item)
            skipSpaces()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: ",") {
                sawComma = true
                i += 1
            } else if bytes[i] != close {
                return nil
            }
        }
    }

    private mutating func parseString() -> FireValue? {
        let quote = bytes[i]
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            if c == quote {
                i += 1
                // Python joins adjacent literals: 'a' 'b' is 'ab'.
                skipSpaces()
                if i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'"),
                   case .string(let more)? = parseString() {
                    return .string(String(decoding: out, as: UTF8.self) + more)
                }
                return .string(String(decoding: out, as: UTF8.self))
            }
            if c == 10 { return nil }
            if c == UInt8(ascii: "\\"), i + 1 < bytes.count {
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "0"): out.append(0)
                case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""): out.append(e)
                default: out += [UInt8(ascii: "\\"), e]
                }
                continue
            }
            out.append(c)
            i += 1
        }
        return nil
    }

    private mutating func parseNumber() -> FireValue? {
        let start = i
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        while i < bytes.count, Self.isNumberByte(bytes[i]) || ((bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+"))
                                                            && (bytes[i - 1] | 0x20) == UInt8(ascii: "e")) {
            i += 1
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self).replacingOccurrences(of: "_", with: "")
        if let value = Int(text) { return .int(value) }
        let isFloat = text.contains { $0 == "." || $0 == "e" || $0 == "E" }
        if isFloat, let value = Double(text), text.last != "." || text.count > 1 { return .double(value) }
        return nil
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    private mutating func parseName() -> FireValue? {
        let start = i
        guard Self.isNameStart(bytes[i]) else { return nil }
        while i < bytes.count, Self.isNameStart(bytes[i]) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
            i += 1
        }
        let name = String(decoding: bytes[start..<i], as: UTF8.self)
        switch name {
        case "True": return .bool(true)
        case "False": return .bool(false)
        case "None": return .null
        default: return .string(name)
        }
    }

    private static func isNameStart(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || b == UInt8(ascii: "_") || b >= 0x80
    }
}
