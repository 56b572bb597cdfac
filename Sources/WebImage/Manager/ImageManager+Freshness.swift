import Foundation

/// ``HTTPCachePolicy/respectHeaders``: a cache hit is used only while its stored
/// freshness allows; otherwise the server is asked first (a conditional request), or, in
/// the `stale-while-revalidate` window, afterwards in the background. The freshness
/// lives with the original's disk entry, beside the validators (extended data through
/// ``ImageCaching``), so any cache that keeps extended data supports it.
extension ImageManager {
    /// Delivers `hit` when it is fresh; otherwise revalidates. Runs on the load's queue.
    func deliverIfFresh(_ load: ManagedLoad, _ hit: ImageCacheQueryResult) {
        guard !load.operation.isFinished else { return }
        readValidators(load) { [self] stored in
            let state = stored?.freshness?.state(at: Date()) ?? .fresh
            let result = load.result(image: hit.image, data: hit.data, cacheType: hit.cacheType)
            switch state {
            case .fresh:
                load.operation.deliver(result, isLast: true, inline: false)
            case .staleWhileRevalidate:
                load.operation.deliver(result, isLast: true, inline: false)
                revalidateInBackground(load, stored: stored)
            case .stale(let staleIfError):
                guard delegate?.shouldDownloadImage(for: load.url) ?? true else {
                    load.operation.deliver(result, isLast: true, inline: false)
                    return
                }
                request(load, validators: stored, revalidation: .freshness(hit: hit, validators: stored, staleIfError: staleIfError))
            }
        }
    }

    /// The end of a revalidation that failed or answered 304. Runs on the load's queue.
    func revalidated(
        _ load: ManagedLoad, hit: ImageCacheQueryResult, stored: HTTPValidators?, error: WebImageError, staleIfError: Bool
    ) {
        let result = load.result(image: hit.image, data: hit.data, cacheType: hit.cacheType)
        if error.code == .cacheNotModified {
            let fresh = Self.merging(stored, with: (error.underlyingError as? NotModifiedResponse)?.http)
            guard let key = load.validatorKey else {
                load.operation.deliver(result, isLast: true, inline: false)
                return
            }
            storeValidators(fresh, forKey: key, in: load.cache) {
                load.queue.async { load.operation.deliver(result, isLast: true, inline: false) }
            }
            return
        }
        if staleIfError, error.code != .cancelled {
            Self.logger.debug("Serving stale \(load.url.redactedForLog) (stale-if-error): \(error)")
            load.operation.deliver(result, isLast: true, inline: false)
            return
        }
        fail(load, error)
    }

    /// Revalidates after a stale hit was delivered: a 304 refreshes the stored freshness,
    /// new data replaces the original's entry (a derived result is dropped, to be derived
    /// again from it). Nothing is delivered; the load has ended.
    private func revalidateInBackground(_ load: ManagedLoad, stored: HTTPValidators?) {
        guard let key = load.validatorKey else { return }
        var options = load.options.downloaderOptions
        options.insert(.lowPriority)
        options.remove(.progressiveLoad)
        if stored?.canValidate == true { options.insert(.useHTTPCache) }
        let context = load.context.loaderContext(
            options: load.options, key: key, queue: load.queue, validators: stored?.canValidate == true ? stored : nil)
        _ = load.loader.requestImage(with: load.url, options: options, context: context, progress: nil) { [self] result in
            switch result {
            case .success(let response) where response.isFinished:
                guard let data = response.data, response.http?.isNoStore != true else { return }
                let image = load.isKeptApart ? nil : response.image
                load.cache.store(image, data: data, forKey: key, cacheType: load.isKeptApart ? .disk : .all) { [self] _ in
                    if let validators = response.http?.validators {
                        storeValidators(validators, forKey: key, in: load.cache) {}
                    }
                }
                if load.isKeptApart, let resultKey = load.key {
                    load.cache.removeImage(forKey: resultKey, cacheType: .all, completion: nil)
                }
            case .failure(let error) where error.code == .cacheNotModified:
                let fresh = Self.merging(stored, with: (error.underlyingError as? NotModifiedResponse)?.http)
                storeValidators(fresh, forKey: key, in: load.cache) {}
            default:
                break
            }
        }
    }

    /// The stored validators updated by a 304's headers: its validators where it sent
    /// them, its freshness (or the old lifetime counted from now).
    static func merging(_ stored: HTTPValidators?, with http: HTTPResponseInfo?) -> HTTPValidators {
        let now = Date()
        let new = http?.validators
        var merged = stored ?? HTTPValidators()
        if let etag = new?.etag { merged.etag = etag }
        if let lastModified = new?.lastModified { merged.lastModified = lastModified }
        if let freshness = new?.freshness {
            merged.freshness = freshness
        } else if var old = merged.freshness {
            old.receivedAt = now
            merged.freshness = old
        }
        return merged
    }
}
