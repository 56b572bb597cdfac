import Foundation

/// A cache hit and what it may still need: ``WebImageOptions/refreshCached`` (deliver,
/// then revalidate) and ``HTTPCachePolicy/respectHeaders`` (revalidate first when stale,
/// or afterwards in the background within `stale-while-revalidate`). The HTTP validators
/// and freshness live with the original's disk entry (its extended data, through
/// ``ImageCaching``), so any cache that keeps extended data supports both.
extension ImageManager {
    /// Delivers a hit of the load's own key, as its options and cache policy allow.
    func deliverCached(_ load: ManagedLoad, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let refresh = load.options.contains(.refreshCached)
        if load.httpCachePolicy == .respectHeaders, !refresh, !load.options.contains(.fromCacheOnly) {
            try await deliverIfFresh(load, hit)
            return
        }
        load.task.finish(load.result(hit), isLast: !refresh)
        if refresh { try await self.refresh(load, cached: hit) }
    }

    /// refreshCached after the cached image was delivered: a conditional request with
    /// the stored validators; 304 ends the load with no second result (and refreshes the
    /// entry's access date), new data gives a second result. A failed check is no new
    /// result: the cached image stands.
    func refresh(_ load: ManagedLoad, cached: ImageCacheQueryResult) async throws(WebImageError) {
        guard !load.options.contains(.fromCacheOnly), delegate?.shouldDownloadImage(for: load.url) ?? true else {
            load.task.finish(nil, isLast: true)
            return
        }
        let validators = await readValidators(load)
        do throws(WebImageError) {
            switch try await download(load, validators: validators, isRevalidation: true) {
            case .response(let response):
                load.task.finish(try await complete(downloaded: response, for: load), isLast: true)
            case .notModified:
                // Reading the original entry once refreshes its access date, so age-based
                // expiry starts over.
                if let key = load.validatorKey { _ = await load.cache.diskData(forKey: key) }
                load.task.finish(nil, isLast: true)
            }
        } catch where error.code != .cancelled {
            Self.logger.debug("Revalidating \(load.url.redactedForLog) failed: \(error)")
            load.task.finish(nil, isLast: true)
        }
    }

    /// Delivers `hit` when its stored freshness allows; otherwise revalidates it first
    /// (a 304 delivers it, and so does a failure within `stale-if-error`), or within
    /// `stale-while-revalidate` delivers it and revalidates in the background.
    private func deliverIfFresh(_ load: ManagedLoad, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let stored = await readValidators(load)
        switch stored?.freshness?.state(at: Date()) ?? .fresh {
        case .fresh:
            load.task.finish(load.result(hit), isLast: true)
        case .staleWhileRevalidate:
            load.task.finish(load.result(hit), isLast: true)
            revalidateInBackground(load, stored: stored)
        case .stale(let staleIfError):
            guard delegate?.shouldDownloadImage(for: load.url) ?? true else {
                load.task.finish(load.result(hit), isLast: true)
                return
            }
            do throws(WebImageError) {
                switch try await download(load, validators: stored, isRevalidation: true) {
                case .response(let response):
                    load.task.finish(try await complete(downloaded: response, for: load), isLast: true)
                case .notModified(let http):
                    if let key = load.validatorKey {
                        await storeValidators(Self.merging(stored, with: http), forKey: key, in: load.cache)
                    }
                    load.task.finish(load.result(hit), isLast: true)
                }
            } catch where staleIfError && error.code != .cancelled {
                Self.logger.debug("Serving stale \(load.url.redactedForLog) (stale-if-error): \(error)")
                load.task.finish(load.result(hit), isLast: true)
            }
        }
    }

    /// Revalidates after a stale hit was delivered: a 304 refreshes the stored freshness,
    /// new data replaces the original's entry (a derived result is dropped, to be derived
    /// again from it). Runs in a task of its own whose token ``cancelAll()`` reaches.
    private func revalidateInBackground(_ load: ManagedLoad, stored: HTTPValidators?) {
        guard let key = load.validatorKey else { return }
        var options = load.options.loaderOptions
        options.insert(.lowPriority)
        options.remove(.progressiveLoad)
        // A result kept apart is derived again from the new data later: no decode now.
        if load.isKeptApart { options.insert(.avoidDecodeImage) }
        let canValidate = stored?.canValidate == true
        if canValidate { options.insert(.useHTTPCache) }
        let context = load.context.loaderContext(options: load.options, originalKey: key, validators: canValidate ? stored : nil)
        let token = ImageLoadToken(url: load.url, priority: .low)
        trackRevalidation(token) { [self, options] in
            let observer = ImageLoadObserver(token: token)
            do throws(WebImageError) {
                let downloaded = try await Self.download(
                    load.url, from: load.loader, options: options, context: context, observer: observer, partial: nil)
                guard case .response(let response) = downloaded else {
                    if case .notModified(let http) = downloaded {
                        await storeValidators(Self.merging(stored, with: http), forKey: key, in: load.cache)
                    }
                    return
                }
                guard let data = response.data, response.http?.isNoStore != true else { return }
                let image = load.isKeptApart ? nil : response.image
                let validators = response.http?.validators
                load.cache.storeInBackground(
                    image, data: data, extendedData: validators.flatMap { $0.isEmpty ? nil : $0.cacheData },
                    forKey: key, cacheType: load.isKeptApart ? .disk : .all)
                if load.isKeptApart, let resultKey = load.key {
                    await load.cache.removeImage(forKey: resultKey, cacheType: .all)
                }
            } catch {
                Self.logger.debug("Revalidating \(load.url.redactedForLog) in the background failed: \(error)")
            }
        }
    }

    /// The validators stored with the load's original entry.
    func readValidators(_ load: ManagedLoad) async -> HTTPValidators? {
        guard let key = load.validatorKey else { return nil }
        return await load.cache.extendedData(forKey: key).flatMap(HTTPValidators.init(cacheData:))
    }

    /// Stores `validators` with `key`'s disk entry; an empty set removes old ones.
    func storeValidators(_ validators: HTTPValidators, forKey key: String, in cache: any ImageCaching) async {
        do throws(WebImageError) {
            try await cache.setExtendedData(validators.isEmpty ? nil : validators.cacheData, forKey: key)
        } catch {
            Self.logger.debug("Keeping the validators of \(key.redactedURLForLog) failed: \(error)")
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
