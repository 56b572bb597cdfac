import Foundation

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
