import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Used for the downloader's default headers, the request a request modifier sees and
/// the response the result carries. Repeated fields keep their order; the subscript
/// joins them with `", "` as HTTP allows (except for `Set-Cookie`, read through
/// ``values(for:)``).
public struct HTTPHeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible,
    CustomDebugStringConvertible {
    /// One field as it appears on the wire.
    public struct Field: Sendable, Hashable {
        /// The field name as sent.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates a list from fields in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Creates a list from `["Name": "value"]` pairs in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The value of `name` (case-insensitive); repeated fields joined with `", "`.
    /// Setting replaces every field of that name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            let values = values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        set {
            remove(name)
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value of `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.httpNameEquals(name) }.map(\.value)
    }

    /// Appends a field, keeping any present ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.httpNameEquals(name) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// One `Name: value` line per field, with the values of credential fields
    /// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`) shown as `***`:
    /// descriptions end up in logs.
    public var description: String {
        fields.map { field in
            let secret = Self.credentialFields.contains { field.name.httpNameEquals($0) }
            return "\(field.name): \(secret ? "***" : field.value)"
        }.joined(separator: "\n")
    }

    /// The same as ``description``, so `print(request)` and `dump` hide credentials too.
    public var debugDescription: String { description }

    private static let credentialFields = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
}

extension String {
    /// ASCII case-insensitive equality, which is all HTTP field names need. Compares the
    /// bytes in place: header lookups run several times per response, and lowercasing
    /// both names allocated two strings each time (3 % of a transfer-only profile).
    fileprivate func httpNameEquals(_ other: String) -> Bool {
        guard self.utf8.count == other.utf8.count else { return false }
        for (a, b) in zip(self.utf8, other.utf8) where a != b {
            let lowerA = a >= 0x41 && a <= 0x5A ? a | 0x20 : a
            let lowerB = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }
}

// MARK: - ContentRange

/// A `Content-Range: bytes first-last/total` header.
struct ContentRange: Equatable {
    var first: Int
    var last: Int
    var total: Int

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2, let total = Int(halves[1]) else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]),
              first >= 0, first <= last, last < total else { return nil }
        (self.first, self.last, self.total) = (first, last, total)
    }
}
