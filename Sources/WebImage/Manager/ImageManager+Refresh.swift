import Foundation

/// refreshCached for servers: the HTTP validators live with the disk entry of the
/// original data (its extended data, through ``ImageCaching``), and a 304 refreshes
/// that entry's dates. Any ``ImageCaching`` that keeps extended data gets revalidation.
extension ImageManager {
    /// Reads the validators stored with the load's original entry and continues on the load's queue.
    func readValidators(_ load: ManagedLoad, then next: @escaping @Sendable (HTTPValidators?) -> Void) {
        guard let key = load.validatorKey else {
            next(nil)
            return
        }
        load.cache.extendedData(forKey: key) { data in
            let validators = data.flatMap(HTTPValidators.init(cacheData:))
            load.queue.async { next(validators) }
        }
    }

    /// Stores `validators` with `key`'s disk entry; an empty set removes old ones.
    func storeValidators(
        _ validators: HTTPValidators, forKey key: String, in cache: any ImageCaching, then done: @escaping @Sendable () -> Void
    ) {
        cache.setExtendedData(validators.isEmpty ? nil : validators.cacheData, forKey: key) { result in
            if case .failure(let error) = result {
                Self.logger.debug("Keeping the validators of \(key.redactedURLForLog) failed: \(error)")
            }
            done()
        }
    }

    /// After a 304: reads the original entry once, which refreshes its access date (so
    /// age-based expiry starts over), then ends the load without a second callback.
    func touchOriginal(_ load: ManagedLoad) {
        guard let key = load.validatorKey else {
            load.operation.deliver(nil, isLast: true, inline: false)
            return
        }
        load.cache.diskData(forKey: key) { _ in
            load.queue.async { load.operation.deliver(nil, isLast: true, inline: false) }
        }
    }
}
