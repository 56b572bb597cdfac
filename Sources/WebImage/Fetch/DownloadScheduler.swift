import Foundation

/// The downloader's bookkeeping as one value: which transfers exist, who waits on each,
/// which are queued and which run. ``ImageDownloader`` keeps it in a `Mutex`; every event
/// (a caller joins or leaves, a priority changes, bytes or a body arrive, a hold on the
/// body ends) is a mutating call that decides and returns what to do, and the downloader does it
/// after unlocking: start transfers, call observers, resume callers. So no caller code,
/// network call ever runs under the lock, as in AsyncHTTPClient's
/// `Transaction.StateMachine`. It never decodes: every caller gets the body, and stage B
/// (``ImageStage``) decodes it.
///
/// Coalescing: a caller joins the transfer whose coalescing key matches until the last
/// hold on its body was released: while it is queued or running it waits for the body;
/// once the body is complete it gets it at once. A caller that decodes the body holds it
/// with a ``BodyLease`` until its decode ended, so a decode that takes long (or a coder
/// that stalls) never causes a second request. Priority: a queued transfer runs at its
/// callers' highest priority.
struct DownloadScheduler {
    enum Phase { case queued, running, delivering }

    struct Entry {
        let transfer: DownloadTransfer
        var callers: [DownloadCaller] = []
        var phase = Phase.queued
        var lastProgressAt: ContinuousClock.Instant?
        var lastProgressBytes = -1
        /// The finished body, while a caller holds it to decode it.
        var body: ImageLoadResponse?
        /// Callers still holding the finished body (``BodyLease``).
        var leases = 0

        var priority: ImageLoadPriority { callers.map(\.priority).max() ?? .normal }
    }

    private(set) var entries: [UInt64: Entry] = [:]
    private var joinable: [String: UInt64] = [:]
    private var queue: DownloadQueue
    private(set) var running = 0
    private(set) var isSuspended = false
    private(set) var isShutDown = false
    /// Whether any transfer ever started (and so may have opened connections).
    private(set) var hasStarted = false
    private var nextID: UInt64 = 0
    let maxConcurrent: Int
    /// Transfers that may wait for a slot (``DownloaderConfig/maxQueuedDownloads``).
    let maxQueued: Int

    init(maxConcurrent: Int, maxQueued: Int = .max, order: DownloaderConfig.ExecutionOrder) {
        self.maxConcurrent = maxConcurrent
        self.maxQueued = maxQueued
        queue = DownloadQueue(order: order)
    }

    var queuedCount: Int { queue.count }

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    // MARK: Callers

    enum Join {
        case rejected
        /// A new transfer would have to wait and `queued` already do, the most allowed.
        case full(queued: Int)
        /// The caller waits on transfer `id`; `start` are the transfers to start now. For a
        /// transfer whose body is complete, `delivery` answers the caller now and `lease` is
        /// its hold on that body.
        case waiting(id: UInt64, start: [DownloadTransfer], delivery: DownloadDelivery? = nil, lease: BodyLease? = nil)
    }

    /// Adds `caller` to the transfer for `key`, or to a new one made by `make`.
    mutating func join(_ caller: DownloadCaller, key: String, make: (UInt64) -> DownloadTransfer) -> Join {
        guard !isShutDown else { return .rejected }
        if let id = joinable[key], let entry = entries[id], entry.phase == .delivering, let body = entry.body {
            let lease = caller.observer.bodyLease
            if lease != nil { entries[id]?.leases += 1 }
            return .waiting(id: id, start: [], delivery: DownloadDelivery(caller, .success(body)), lease: lease)
        }
        if let id = joinable[key], let entry = entries[id] {
            entries[id]?.callers.append(caller)
            if caller.watchesBody { entry.transfer.markWatched() }
            if entries[id]?.phase == .queued, let priority = entries[id]?.priority { queue.setPriority(id, to: priority) }
            return .waiting(id: id, start: [])
        }
        // Counted before it is made: a transfer that cannot start now would wait.
        if queue.count >= maxQueued, isSuspended || running >= maxConcurrent { return .full(queued: queue.count) }
        let id = makeID()
        let transfer = make(id)
        if caller.watchesBody { transfer.markWatched() }
        entries[id] = Entry(transfer: transfer, callers: [caller])
        joinable[key] = id
        queue.insert(id, priority: caller.priority)
        return .waiting(id: id, start: startQueued())
    }

    /// Whether a caller with `key` would join a transfer already there (which checks its
    /// own hops) rather than start one.
    func hasTransfer(forKey key: String) -> Bool {
        joinable[key].map { entries[$0] != nil } ?? false
    }

    /// Removes caller `callerID` (its token or task was cancelled).
    ///
    /// - Returns: the caller, to resume with `cancelled`, and the transfer to cancel when
    ///   it was the last caller.
    mutating func leave(_ callerID: UInt64, of id: UInt64) -> (caller: DownloadCaller?, abandoned: DownloadTransfer?) {
        guard var entry = entries[id], let index = entry.callers.firstIndex(where: { $0.id == callerID }) else {
            return (nil, nil)
        }
        let caller = entry.callers.remove(at: index)
        guard entry.callers.isEmpty else {
            entries[id] = entry
            if entry.phase == .queued { queue.setPriority(id, to: entry.priority) }
            return (caller, nil)
        }
        remove(id)
        return (caller, entry.phase == .running ? entry.transfer : nil)
    }

    /// Changes one caller's priority; a queued transfer moves in the queue.
    mutating func setPriority(_ priority: ImageLoadPriority, caller callerID: UInt64, of id: UInt64) {
        guard let index = entries[id]?.callers.firstIndex(where: { $0.id == callerID }) else { return }
        entries[id]?.callers[index].priority = priority
        if let entry = entries[id], entry.phase == .queued { queue.setPriority(id, to: entry.priority) }
    }

    // MARK: Running

    /// Moves queued transfers to running while slots are free; returns them to start.
    mutating func startQueued() -> [DownloadTransfer] {
        var started: [DownloadTransfer] = []
        while !isSuspended, running < maxConcurrent, let id = queue.popNext() {
            guard entries[id] != nil else { continue }
            entries[id]?.phase = .running
            running += 1
            hasStarted = true
            if let transfer = entries[id]?.transfer { started.append(transfer) }
        }
        return started
    }

    mutating func setSuspended(_ suspended: Bool) -> [DownloadTransfer] {
        isSuspended = suspended
        return startQueued()
    }

    /// Progress observers to call for `received` bytes: at most once per `interval`
    /// unless `force`, never the same count twice, only while the body is being read.
    mutating func progress(
        of id: UInt64, received: Int, interval: TimeInterval, force: Bool, now: ContinuousClock.Instant
    ) -> [ImageLoaderProgress] {
        guard let entry = entries[id], entry.phase == .running, received != entry.lastProgressBytes else { return [] }
        if !force, let last = entry.lastProgressAt, now - last < .seconds(interval) { return [] }
        entries[id]?.lastProgressAt = now
        entries[id]?.lastProgressBytes = received
        return entry.callers.compactMap(\.observer.progress)
    }

    /// The callers' readers of the bytes so far (``ImageLoadObserver/bodySoFar``), while the
    /// body is being read.
    func bodyReaders(of id: UInt64) -> [@Sendable (Data) -> Void] {
        guard let entry = entries[id], entry.phase == .running else { return [] }
        return entry.callers.compactMap(\.observer.bodySoFar)
    }

    // MARK: Ending

    /// What to do once a transfer's network part ended.
    struct FetchEnd {
        var start: [DownloadTransfer] = []
        var deliveries: [DownloadDelivery] = []
        /// The holds on the body of the callers answered now.
        var leases: [BodyLease] = []
    }

    /// A started transfer's network part ended (every started transfer reports once):
    /// its slot is freed. Every caller gets the error or the body now; the entry stays,
    /// joinable, while a caller holds the body (``releaseBody(of:)``).
    mutating func fetchEnded(_ id: UInt64, _ outcome: Result<ImageLoadResponse, WebImageError>) -> FetchEnd {
        running -= 1
        var end = FetchEnd(start: startQueued())
        guard var entry = entries[id] else { return end }
        switch outcome {
        case .failure(let error):
            end.deliveries = entry.callers.map { DownloadDelivery($0, .failure(error)) }
            remove(id)
        case .success(let body):
            entry.phase = .delivering
            entry.body = body
            for caller in entry.callers {
                end.deliveries.append(DownloadDelivery(caller, .success(body)))
                if let lease = caller.observer.bodyLease {
                    entry.leases += 1
                    end.leases.append(lease)
                }
            }
            entry.callers = []
            entries[id] = entry
            if entry.leases == 0 { remove(id) }
        }
        return end
    }

    /// A caller released its hold on transfer `id`'s body (``BodyLease``).
    mutating func releaseBody(of id: UInt64) {
        guard var entry = entries[id], entry.phase == .delivering, entry.leases > 0 else { return }
        entry.leases -= 1
        entries[id] = entry
        if entry.leases == 0 { remove(id) }
    }

    /// Ends every transfer: callers get `cancelled`; returns the running transfers to cancel.
    mutating func cancelAll() -> (deliveries: [DownloadDelivery], transfers: [DownloadTransfer]) {
        queue.removeAll()
        var deliveries: [DownloadDelivery] = []
        var transfers: [DownloadTransfer] = []
        for entry in entries.values {
            deliveries += entry.callers.map { DownloadDelivery($0, .failure(.cancelled())) }
            if entry.phase == .running { transfers.append(entry.transfer) }
        }
        entries = [:]
        joinable = [:]
        return (deliveries, transfers)
    }

    /// Refuses callers from now on; `false` when it already did.
    mutating func shutDown() -> Bool {
        defer { isShutDown = true }
        return !isShutDown
    }

    private mutating func remove(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if entry.phase == .queued { queue.remove(id) }
        if joinable[entry.transfer.key] == id { joinable[entry.transfer.key] = nil }
    }
}

// MARK: - DownloadQueue

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
