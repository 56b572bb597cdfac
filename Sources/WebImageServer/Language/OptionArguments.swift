import WebImageCodecs
import Foundation

/// The argument forms of imgproxy's processing options, parsed as imgproxy parses them
/// (docs/usage/processing.mdx, options/parser of imgproxy 4): booleans, signed integers,
/// decimal numbers, hex and `R:G:B` colours. A malformed argument is a 400 naming the
/// option; nothing is silently dropped, except where imgproxy itself drops it (an
/// unrecognised boolean is `false`).
enum OptionArguments {
    /// imgproxy's booleans (Go's `ParseBool`): `1 t T TRUE true True` are true, anything
    /// else false.
    static func bool(_ text: Substring) -> Bool {
        ["1", "t", "T", "TRUE", "true", "True"].contains(text)
    }

    /// A decimal integer with an optional sign, in `range`.
    static func int(_ text: Substring, _ option: Substring, _ range: ClosedRange<Int>) throws(ProxyError) -> Int {
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(text.first == "+" ? text.dropFirst() : text), range.contains(value)
        else {
            throw .badRequest("\(option): expected an integer from \(range.lowerBound) to \(range.upperBound), got \"\(text.prefix(32))\"")
        }
        return value
    }

    /// A 64-bit integer (Unix times).
    static func int64(_ text: Substring, _ option: Substring) throws(ProxyError) -> Int64 {
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int64(text.first == "+" ? text.dropFirst() : text)
        else { throw .badRequest("\(option): expected an integer, got \"\(text.prefix(32))\"") }
        return value
    }

    /// A finite decimal number (`1`, `-0.5`, `.5`, `2e-1`) in `range`. Infinities and NaN,
    /// which Go's parser would take, are refused.
    static func number(_ text: Substring, _ option: Substring, _ range: ClosedRange<Double>) throws(ProxyError) -> Double {
        let allowed = Set("0123456789+-.eE")
        guard !text.isEmpty, text.count <= 32, text.allSatisfy({ allowed.contains($0) }),
              let value = Double(text), value.isFinite, range.contains(value)
        else {
            throw .badRequest("\(option): expected a number from \(format(range.lowerBound)) to \(format(range.upperBound)), got \"\(text.prefix(32))\"")
        }
        return value
    }

    /// A number strictly greater than 0.
    static func positive(_ text: Substring, _ option: Substring) throws(ProxyError) -> Double {
        let value = try number(text, option, 0...1e9)
        guard value > 0 else { throw .badRequest("\(option): must be greater than 0") }
        return value
    }

    /// `RRGGBB` or `RGB` hex, without `#`.
    static func hexColor(_ text: Substring, _ option: Substring) throws(ProxyError) -> RGBA {
        let digits = text.compactMap { $0.hexDigitValue }
        guard digits.count == text.count else { throw .badRequest("\(option): \"\(text.prefix(16))\" is not a hex colour") }
        switch digits.count {
        case 3: return RGBA(r: UInt8(digits[0] * 17), g: UInt8(digits[1] * 17), b: UInt8(digits[2] * 17))
        case 6:
            return RGBA(r: UInt8(digits[0] * 16 + digits[1]), g: UInt8(digits[2] * 16 + digits[3]),
                        b: UInt8(digits[4] * 16 + digits[5]))
        default: throw .badRequest("\(option): a hex colour has 3 or 6 digits")
        }
    }

    /// One colour channel, 0…255, digits only.
    static func channel(_ text: Substring, _ option: Substring) throws(ProxyError) -> UInt8 {
        guard !text.isEmpty, text.count <= 3, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt8(text) else {
            throw .badRequest("\(option): a colour channel is an integer from 0 to 255, got \"\(text.prefix(16))\"")
        }
        return value
    }

    /// Checks an option's argument count.
    static func arity(_ args: [Substring], _ option: Substring, _ range: ClosedRange<Int>) throws(ProxyError) {
        guard range.contains(args.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw .badRequest("\(option): takes \(expected) argument\(range.upperBound == 1 ? "" : "s"), got \(args.count)")
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
