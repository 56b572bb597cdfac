import Foundation

/// The downloader's bookkeeping as one value: which transfers exist, who waits on each,
/// which are queued and which run. ``ImageDownloader`` keeps it in a `Mutex`; every event
/// (a caller joins or leaves, a priority changes, bytes or a body arrive, a decode ends)
/// is a mutating call that decides and returns what to do, and the downloader does it
/// after unlocking: start transfers, call observers, resume callers. So no caller code,
/// coder or network call ever runs under the lock, as in AsyncHTTPClient's
/// `Transaction.StateMachine`.
///
/// Coalescing: a caller joins the transfer whose coalescing key matches until that
/// transfer's last decode ended and the last hold on its body was released: while it is
/// queued or running it waits for the body; once the body is complete, a data-only caller
/// gets it at once and another waits for the decode it asks for (started if no earlier
/// caller asked for the same one). A data-only caller that decodes the body itself (the
/// manager's stage B) holds it with a ``BodyLease`` until its decode ended. So a decode
/// that takes long (or a coder that stalls), here or in stage B, never causes a second
/// request. Priority: a queued transfer runs at its callers' highest priority.
struct DownloadScheduler {
    enum Phase { case queued, running, delivering }

    struct Entry {
        let transfer: DownloadTransfer
        var callers: [DownloadCaller] = []
        var phase = Phase.queued
        var lastProgressAt: ContinuousClock.Instant?
        var lastProgressBytes = -1
        /// A partial decode is running on the decode queue (one at a time per transfer).
        var partialInFlight = false
        var incrementalDecoder: (any ProgressiveImageDecoder)?
        /// The finished body, while its decodes run.
        var body: ImageLoadResponse?
        var pendingDecodes: Set<DownloadCaller.DecodeKey> = []
        /// Data-only callers still holding the finished body (``BodyLease``).
        var leases = 0
        /// Whether nothing needs the finished body any more.
        var isDone: Bool { pendingDecodes.isEmpty && leases == 0 }

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

    init(maxConcurrent: Int, order: DownloaderConfig.ExecutionOrder) {
        self.maxConcurrent = maxConcurrent
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
        /// The caller waits on transfer `id`; `start` are the transfers to start now. For a
        /// transfer whose body is complete: `delivery` answers a data-only caller now, and
        /// `decode` is a decode of `body` to run for this caller.
        /// `lease`: the data-only caller's hold on the body it is answered with now.
        case waiting(id: UInt64, start: [DownloadTransfer], delivery: DownloadDelivery? = nil, lease: BodyLease? = nil,
                     decode: (key: DownloadCaller.DecodeKey, coder: any ImageCoder, transfer: DownloadTransfer, body: Data)? = nil)
    }

    /// Adds `caller` to the transfer for `key`, or to a new one made by `make`.
    mutating func join(_ caller: DownloadCaller, key: String, make: (UInt64) -> DownloadTransfer) -> Join {
        guard !isShutDown else { return .rejected }
        if let id = joinable[key], let entry = entries[id], entry.phase == .delivering, let body = entry.body {
            if caller.decodeKey == .dataOnly {
                let lease = caller.observer.bodyLease
                if lease != nil { entries[id]?.leases += 1 }
                return .waiting(id: id, start: [], delivery: DownloadDelivery(caller, .success(body)), lease: lease)
            }
            entries[id]?.callers.append(caller)
            guard !entry.pendingDecodes.contains(caller.decodeKey), let data = body.data else { return .waiting(id: id, start: []) }
            entries[id]?.pendingDecodes.insert(caller.decodeKey)
            return .waiting(id: id, start: [], decode: (caller.decodeKey, caller.coder, entry.transfer, data))
        }
        if let id = joinable[key], let entry = entries[id] {
            entries[id]?.callers.append(caller)
            if caller.watchesBody { entry.transfer.markWatched() }
            if entries[id]?.phase == .queued, let priority = entries[id]?.priority { queue.setPriority(id, to: priority) }
            return .waiting(id: id, start: [])
        }
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

    /// Claims the transfer's one partial-decode slot when a caller wants partial images:
    /// the coder and options of the first such caller, and the incremental decoder made
    /// by an earlier partial decode (`nil` the first time: the claimant makes it, off the lock).
    mutating func claimPartialDecode(of id: UInt64) -> (coder: any ImageCoder, options: ImageDecodeOptions,
                                                        decoder: (any ProgressiveImageDecoder)?)? {
        guard let entry = entries[id], entry.phase == .running, !entry.partialInFlight,
              let first = entry.callers.first(where: \.wantsPartials),
              case .decode(let options, _) = first.decodeKey else { return nil }
        entries[id]?.partialInFlight = true
        return (first.coder, options, entry.incrementalDecoder)
    }

    /// Ends a partial decode: keeps its decoder and returns the observers to give `image` to.
    mutating func endPartialDecode(
        of id: UInt64, decoder: (any ProgressiveImageDecoder)?, image: DecodedImage?
    ) -> [@Sendable (ImageLoadResponse) -> Void] {
        guard let entry = entries[id] else { return [] }
        entries[id]?.partialInFlight = false
        if entry.incrementalDecoder == nil { entries[id]?.incrementalDecoder = decoder }
        guard image != nil, entry.phase == .running else { return [] }
        return entry.callers.filter(\.wantsPartials).compactMap(\.observer.partialImage)
    }

    // MARK: Ending

    /// What to do once a transfer's network part ended.
    struct FetchEnd {
        var start: [DownloadTransfer] = []
        var deliveries: [DownloadDelivery] = []
        /// Decodes to run, one per distinct request among the callers.
        var decodes: [(key: DownloadCaller.DecodeKey, coder: any ImageCoder)] = []
        /// The holds on the body of the data-only callers answered now.
        var leases: [BodyLease] = []
    }

    /// A started transfer's network part ended (every started transfer reports once):
    /// its slot is freed. On failure every caller gets the error; on success data-only
    /// callers get the body now and the others wait for ``decoded(_:of:result:)``.
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
            for caller in entry.callers where caller.decodeKey == .dataOnly {
                end.deliveries.append(DownloadDelivery(caller, .success(body)))
                if let lease = caller.observer.bodyLease {
                    entry.leases += 1
                    end.leases.append(lease)
                }
            }
            entry.callers.removeAll { $0.decodeKey == .dataOnly }
            for caller in entry.callers where !entry.pendingDecodes.contains(caller.decodeKey) {
                entry.pendingDecodes.insert(caller.decodeKey)
                end.decodes.append((caller.decodeKey, caller.coder))
            }
            entries[id] = entry
            if entry.isDone { remove(id) }
        }
        return end
    }

    /// One decode of a finished body ended: the callers that asked for it get the result.
    mutating func decoded(
        _ key: DownloadCaller.DecodeKey, of id: UInt64, result: Result<DecodedImage, WebImageError>
    ) -> [DownloadDelivery] {
        guard var entry = entries[id], let body = entry.body else { return [] }
        let response = result.map { image in
            var final = body
            final.image = image
            return final
        }
        let deliveries = entry.callers.filter { $0.decodeKey == key }.map { DownloadDelivery($0, response) }
        entry.callers.removeAll { $0.decodeKey == key }
        entry.pendingDecodes.remove(key)
        entries[id] = entry
        if entry.isDone { remove(id) }
        return deliveries
    }

    /// A data-only caller released its hold on transfer `id`'s body (``BodyLease``).
    mutating func releaseBody(of id: UInt64) {
        guard var entry = entries[id], entry.phase == .delivering, entry.leases > 0 else { return }
        entry.leases -= 1
        entries[id] = entry
        if entry.isDone { remove(id) }
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
