/// The transfers waiting for a download slot, by id, ordered by priority and then by the
/// configured execution order. A value: the downloader's ``DownloadScheduler`` keeps it.
struct DownloadQueue {
    private struct Entry {
        var id: UInt64
        var priority: ImageLoadPriority
        var sequence: UInt64
    }
    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var count: Int { entries.count }

    mutating func insert(_ id: UInt64, priority: ImageLoadPriority) {
        nextSequence += 1
        entries.append(Entry(id: id, priority: priority, sequence: nextSequence))
    }

    /// Gives a queued transfer a new priority: a more urgent caller joined it, or a
    /// caller changed its own. Its place among equal priorities (its sequence) stays.
    mutating func setPriority(_ id: UInt64, to priority: ImageLoadPriority) {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[i].priority = priority
    }

    mutating func remove(_ id: UInt64) {
        entries.removeAll { $0.id == id }
    }

    /// Takes the transfer to start next: highest priority, then oldest (FIFO) or newest (LIFO).
    mutating func popNext(order: DownloaderConfig.ExecutionOrder) -> UInt64? {
        guard !entries.isEmpty else { return nil }
        // Runs under the downloader's lock once per started transfer, over every queued
        // one (1000 in the bench): plain values read in place, no reference counting.
        let best = entries.withUnsafeBufferPointer { e -> Int in
            var best = 0
            for i in e.indices.dropFirst() {
                let p = e[i].priority, q = e[best].priority
                if p != q {
                    if p > q { best = i }
                } else if order == .fifo ? e[i].sequence < e[best].sequence : e[i].sequence > e[best].sequence {
                    best = i
                }
            }
            return best
        }
        return entries.remove(at: best).id
    }

    /// Empties the queue.
    mutating func removeAll() {
        entries = []
    }
}
