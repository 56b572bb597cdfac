/// The transfers waiting for a download slot, by id, ordered by priority and then by the
/// configured execution order. A value: the downloader's ``DownloadScheduler`` keeps it,
/// under its lock.
///
/// A binary heap, so starting the next transfer costs O(log n) rather than a scan of
/// every queued one (with 1,000 URLs asked at once, the scan was half a million
/// comparisons under the downloader's lock). A priority change or a removal does not
/// search the heap: `live` holds each queued transfer's current entry, and a heap entry
/// that no longer matches it is stale and skipped when it comes to the top. Stale entries
/// are bounded: when they outnumber the live ones the heap is rebuilt from `live`.
struct DownloadQueue {
    private struct Entry {
        var id: UInt64
        var priority: ImageLoadPriority
        var sequence: UInt64
    }
    private var heap: [Entry] = []
    private var live: [UInt64: Entry] = [:]
    private var nextSequence: UInt64 = 0
    let order: DownloaderConfig.ExecutionOrder

    init(order: DownloaderConfig.ExecutionOrder) {
        self.order = order
    }

    var count: Int { live.count }

    /// Heap entries, stale ones included (for the bound's test).
    var storedCount: Int { heap.count }

    mutating func insert(_ id: UInt64, priority: ImageLoadPriority) {
        nextSequence += 1
        let entry = Entry(id: id, priority: priority, sequence: nextSequence)
        live[id] = entry
        push(entry)
    }

    /// Gives a queued transfer a new priority: a more urgent caller joined it, or a
    /// caller changed its own. Its place among equal priorities (its sequence) stays.
    mutating func setPriority(_ id: UInt64, to priority: ImageLoadPriority) {
        guard var entry = live[id], entry.priority != priority else { return }
        entry.priority = priority
        live[id] = entry
        push(entry)
        compactIfStale()
    }

    mutating func remove(_ id: UInt64) {
        guard live.removeValue(forKey: id) != nil else { return }
        compactIfStale()
    }

    /// Takes the transfer to start next: highest priority, then oldest (FIFO) or newest (LIFO).
    mutating func popNext() -> UInt64? {
        while let top = popTop() {
            // The entry is current only if its transfer is still queued at this priority.
            if let entry = live[top.id], entry.priority == top.priority {
                live[top.id] = nil
                compactIfStale()
                return top.id
            }
        }
        return nil
    }

    /// Empties the queue.
    mutating func removeAll() {
        heap = []
        live = [:]
    }

    // MARK: The heap

    /// Whether `a` starts before `b`.
    private func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if a.priority != b.priority { return a.priority > b.priority }
        return order == .fifo ? a.sequence < b.sequence : a.sequence > b.sequence
    }

    private mutating func push(_ entry: Entry) {
        heap.append(entry)
        siftUp(heap.count - 1)
    }

    private mutating func popTop() -> Entry? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        let entry = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(entry, heap[parent]) else { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let entry = heap[parent]
        let count = heap.count
        while true {
            var child = 2 * parent + 1
            guard child < count else { break }
            if child + 1 < count, precedes(heap[child + 1], heap[child]) { child += 1 }
            guard precedes(heap[child], entry) else { break }
            heap[parent] = heap[child]
            parent = child
        }
        heap[parent] = entry
    }

    /// Rebuilds the heap from the live entries once stale ones outnumber them, so the
    /// heap holds at most twice the queued transfers (plus 16) after every change, however
    /// often priorities change. Amortized O(1): a rebuild leaves no stale entry, and the
    /// next one needs as many changes or starts again as there are queued transfers.
    private mutating func compactIfStale() {
        guard heap.count > 2 * live.count + 16 else { return }
        heap = Array(live.values)
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }
}
