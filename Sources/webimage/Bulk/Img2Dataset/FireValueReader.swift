/// Typed reads of Fire values, each error naming the option as it was spelled.
struct FireValueReader {
    let fire: FireArguments

    func has(_ name: String) -> Bool { fire.values[name] != nil }

    private func fail(_ name: String, _ wanted: String) -> Img2DatasetOptions.UsageError {
        let value = fire.values[name]?.pythonText ?? "?"
        return Img2DatasetOptions.UsageError("\(fire.spellings[name] ?? "--\(name)"): \(name) takes \(wanted); got \(value)")
    }

    func string(_ name: String) throws(Img2DatasetOptions.UsageError) -> String? {
        switch fire.values[name] {
        case nil: return nil
        case .string(let s)?: return s
        // Fire would pass a number on as a number; a column or folder named 2024 is meant as text.
        case .int(let i)?: return String(i)
        case .double(let d)?: return JSONValue.pythonFloat(d)
        default: throw fail(name, "a text")
        }
    }

    /// A text or `None`.
    func optionalString(_ name: String) throws(Img2DatasetOptions.UsageError) -> String? {
        if case .null? = fire.values[name] { return nil }
        return try string(name)
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws(Img2DatasetOptions.UsageError) -> Int? {
        guard let value = fire.values[name] else { return nil }
        let number: Int
        switch value {
        case .int(let i): number = i
        case .double(let d) where d == d.rounded() && abs(d) < 1e15: number = Int(d)
        default: throw fail(name, "an integer")
        }
        guard range.contains(number) else { throw fail(name, "an integer from \(range.lowerBound) to \(range.upperBound)") }
        return number
    }

    func double(_ name: String, in range: ClosedRange<Double>) throws(Img2DatasetOptions.UsageError) -> Double? {
        guard let value = fire.values[name] else { return nil }
        let number: Double
        switch value {
        case .int(let i): number = Double(i)
        case .double(let d): number = d
        // Fire gives `inf` as the text 'inf'; img2dataset's own default is float("inf").
        case .string(let s) where ["inf", "infinity"].contains(s.lowercased()): number = .infinity
        default: throw fail(name, "a number")
        }
        guard range.contains(number), !number.isNaN else {
            throw fail(name, "a number from \(JSONValue.pythonFloat(range.lowerBound)) to \(JSONValue.pythonFloat(range.upperBound))")
        }
        return number
    }

    func bool(_ name: String) throws(Img2DatasetOptions.UsageError) -> Bool? {
        switch fire.values[name] {
        case nil: return nil
        case .bool(let b)?: return b
        case .int(let i)? where i == 0 || i == 1: return i == 1
        default: throw fail(name, "True or False (or the bare flag, or --no\(name))")
        }
    }

    /// A list as Fire gives it: `'["a","b"]'`, `a,b`, or one word (a list of one); `None` is nil.
    func stringList(_ name: String) throws(Img2DatasetOptions.UsageError) -> [String]? {
        switch fire.values[name] {
        case nil, .null?: return nil
        case .list(let items)?:
            var out: [String] = []
            for item in items {
                switch item {
                case .string(let s): out.append(s)
                case .int(let i): out.append(String(i))
                default: throw fail(name, "a list of names")
                }
            }
            return out
        case .string(let s)?: return [s]
        default: throw fail(name, "a list of names")
        }
    }

    func interpolation(_ name: String) throws(Img2DatasetOptions.UsageError) -> String? {
        guard let text = try string(name) else { return nil }
        guard Img2DatasetOptions.interpolations.contains(text.lowercased()) else {
            throw Img2DatasetOptions.UsageError("Invalid option for interpolation: \(text); use "
                + Img2DatasetOptions.interpolations.joined(separator: ", "))
        }
        return text.lowercased()
    }
}
