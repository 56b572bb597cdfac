import Foundation

/// refreshCached for servers: the HTTP validators live with the disk entry of the
/// original data (its extended data), and a 304 refreshes that entry's dates.
///
/// Revalidation needs an ``ImageCache`` (the validators live in its ``DiskCache``);
/// with another ``ImageCaching`` a refresh always downloads.
extension ImageManager {
    /// Reads the validators stored with the load's original entry and continues on the load's queue.
    func readValidators(_ load: ManagedLoad, then next: @escaping @Sendable (HTTPValidators?) -> Void) {
        guard let cache = load.cache as? ImageCache, let key = load.validatorKey else {
            next(nil)
            return
        }
        let disk = cache.diskCache
        disk.ioQueue.async {
            let validators = disk.extendedDataSync(forKey: key).flatMap(HTTPValidators.init(cacheData:))
            load.queue.async { next(validators) }
        }
    }

    /// Stores `validators` with `key`'s disk entry; an empty set removes old ones.
    func storeValidators(
        _ validators: HTTPValidators, forKey key: String, in cache: any ImageCaching, then done: @escaping @Sendable () -> Void
    ) {
        guard let cache = cache as? ImageCache else {
            done()
            return
        }
        let disk = cache.diskCache
        disk.ioQueue.async {
            do {
                try disk.setExtendedDataSync(validators.isEmpty ? nil : validators.cacheData, forKey: key)
            } catch {
                Self.logger.debug("Keeping the validators of \(key.redactedURLForLog) failed: \(error)")
            }
            done()
        }
    }

    /// After a 304: reads the original entry once, which refreshes its access date (so
    /// age-based expiry starts over), then ends the load without a second callback.
    func touchOriginal(_ load: ManagedLoad) {
        guard let cache = load.cache as? ImageCache, let key = load.validatorKey else {
            load.operation.deliver(nil, isLast: true, inline: true)
            return
        }
        let disk = cache.diskCache
        disk.ioQueue.async {
            _ = disk.readDataSync(forKey: key)
            load.queue.async { load.operation.deliver(nil, isLast: true, inline: true) }
        }
    }
}
