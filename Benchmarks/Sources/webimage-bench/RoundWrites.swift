import WebImage

/// The disk writes a round leaves running, for the rows that store files (the manager's,
/// the keep floor writing them): the round hands over its disk tier as it ends, the
/// untimed settle step waits for its writes and counts its entries, so no round inherits
/// another's backlog; a round that stored fewer entries than expected fails the run.
final class RoundWrites {
    private let expected: Int
    private var pending: (flush: () async -> Void, disk: DiskCache)?
    private var short = 0

    /// `expected`: the entries a round must leave (0: none checked).
    init(expected: Int) { self.expected = expected }

    /// Keeps `disk` (and what `flush` waits for) past the round, until ``settle()``.
    func keep(_ disk: DiskCache, flush: @escaping () async -> Void) { pending = (flush, disk) }

    /// Waits for the kept round's writes and counts its entries.
    func settle() async {
        guard let (flush, disk) = pending else { return }
        pending = nil
        await flush()
        if expected > 0, await disk.totalCount() < expected { short += 1 }
    }

    /// Throws when a round stored fewer entries than expected.
    func check() throws {
        guard short == 0 else { throw UsageError("\(short) round(s) stored fewer disk entries than URLs") }
    }
}
