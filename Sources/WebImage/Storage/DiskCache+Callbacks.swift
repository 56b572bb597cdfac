import Foundation

/// The callback forms of ``DiskCache``'s operations, for code that is not `async`; the
/// caches' own background writes and removals use them (with no completion), so they stay
/// beside the `async` forms rather than in WebImageCompat.
/// Completions run on the thread that did the work: a thread of ``DiskCache/Config/ioPool``
/// for reads, the cache's serial I/O queue (`ioQueue`) for everything else.
extension DiskCache {
    /// ``data(forKey:)`` with a completion: on the calling thread for a hit the kernel
    /// has cached (see ``data(forKey:)``), otherwise on a thread of ``Config/ioPool``.
    public func data(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        if case .done(let data) = readDataWithoutBlocking(forKey: key) {
            completion(data)
            return
        }
        if !config.ioPool.submit({ completion(self.readDataSync(forKey: key)) }) { completion(nil) }
    }

    /// ``extendedData(forKey:)`` with a completion on a thread of ``Config/ioPool``.
    public func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        if !config.ioPool.submit({ completion(self.extendedDataSync(forKey: key)) }) { completion(nil) }
    }

    /// ``setExtendedData(_:forKey:)`` with a completion on `ioQueue`, after the writes
    /// queued before it; through the bounded write line (its bytes count against
    /// ``Config/maxQueuedWriteBytes``), so when the line is full `completion` gets
    /// ``WebImageCodecs/WebImageError/Code/cacheIOFailed`` at once, on this thread.
    public func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) {
        if let refused = queueExtendedData(data, forKey: key, then: completion) { completion(.failure(refused)) }
    }

    /// ``store(_:forKey:)`` with a completion on `ioQueue`, or at once on this thread when
    /// the write line is full (``Config/maxQueuedWriteBytes``).
    public func store(
        _ data: Data, forKey key: String,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)? = nil
    ) {
        store(data, extendedData: nil, forKey: key, completion: completion)
    }

    /// ``store(_:forKey:completion:)`` with `extendedData` attached before the entry
    /// appears (a ``TieredCache`` value's metadata).
    package func store(
        _ data: Data, extendedData: Data?, forKey key: String,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)? = nil
    ) {
        let refused = queueWrite(of: data.count, forKey: key) {
            let result = Result<Void, WebImageError> { () throws(WebImageError) in
                try self.writeDataSync(data, extendedData: extendedData, forKey: key)
            }
            completion?(result)
        }
        if let refused { completion?(.failure(refused)) }
    }

    /// ``setExtendedData(_:forKey:completion:)`` in the background through the bounded
    /// write line (its bytes count against ``Config/maxQueuedWriteBytes``): when the line is
    /// full it is dropped, which costs only an earlier revalidation (a stage's renewal
    /// after a 304). `true` when it was queued.
    @discardableResult
    package func setExtendedDataInBackground(_ data: Data?, forKey key: String) -> Bool {
        queueExtendedData(data, forKey: key, then: { _ in }) == nil
    }

    /// Queues setting `key`'s extended data on the write line, its bytes (at least one)
    /// counted against ``Config/maxQueuedWriteBytes``; `then` gets the outcome on
    /// `ioQueue`. Returns the refusal instead when the line is full.
    private func queueExtendedData(
        _ data: Data?, forKey key: String, then: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) -> WebImageError? {
        queueWrite(of: max(data?.count ?? 0, 1), forKey: key) {
            then(Result { () throws(WebImageError) in try self.setExtendedDataSync(data, forKey: key) })
        }
    }

    /// ``removeData(forKey:)`` with a completion on `ioQueue`.
    public func removeData(forKey key: String, completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeDataSync(forKey: key)
            completion?()
        }
    }

    /// ``containsData(forKey:)`` with a completion on `ioQueue`.
    public func containsData(forKey key: String, completion: @escaping @Sendable (Bool) -> Void) {
        ioQueue.async { completion(self.containsDataSync(forKey: key)) }
    }

    /// ``removeAll()`` with a completion on `ioQueue`.
    public func removeAll(completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeAllSync()
            completion?()
        }
    }

    /// ``removeExpiredData()`` with a completion on `ioQueue`.
    public func removeExpiredData(completion: (@Sendable () -> Void)? = nil) {
        ioQueue.async {
            self.removeExpiredDataSync()
            completion?()
        }
    }
}
