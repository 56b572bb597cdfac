/// Formats parameter values for ``ImageTransformer/transformerKey`` the same way on every run.
enum TransformerKey {
    /// Whole numbers as integers, others in Swift's shortest round-trip decimal form.
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int(value))
        }
        return value.description
    }

    /// Lowercase `rrggbbaa`.
    static func color(_ c: RGBA) -> String {
        hex(c.r) + hex(c.g) + hex(c.b) + hex(c.a)
    }

    private static func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(v >> 4)], digits[Int(v & 15)]])
    }

    /// `Name(label:value,…)`.
    static func make(_ name: String, _ parameters: KeyValuePairs<String, String>) -> String {
        name + "(" + parameters.map { "\($0.key):\($0.value)" }.joined(separator: ",") + ")"
    }
}
