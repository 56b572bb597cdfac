import Foundation

/// The redirect hops of one transfer: how many were taken and where they went.
struct RedirectTrail {
    /// URLs requested so far (absolute strings), to see a loop before requesting again.
    private(set) var visited: Set<String>
    /// Hops taken so far.
    private(set) var hops = 0

    init(start: URL) {
        visited = [start.absoluteString]
    }

    /// Records a hop to `url`.
    mutating func record(_ url: URL) {
        visited.insert(url.absoluteString)
        hops += 1
    }
}
