import Foundation

/// A cache hit and what it may still need: ``WebImageOptions/refreshCached`` (deliver,
/// then revalidate) and ``HTTPCachePolicy/respectHeaders`` (revalidate first when stale,
/// or afterwards in the background within `stale-while-revalidate`). The HTTP validators
/// and freshness live with the original's disk entry (its extended data, through
/// ``ImageCaching``), also for a derived result, so any cache that keeps extended data
/// supports both.
extension ImageManager {
    /// Delivers a hit of the load's own key, as its options and cache policy allow.
    func deliverCached(_ request: ImageRequest, _ task: ImageTask, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let refresh = request.options.contains(.refreshCached)
        if request.httpCachePolicy == .respectHeaders, !refresh, !request.options.contains(.fromCacheOnly) {
            try await deliverIfFresh(request, task, hit)
            return
        }
        task.finish(request.result(hit), isLast: !refresh)
        if refresh { try await self.refresh(request, task, cached: hit) }
    }

    /// refreshCached after the cached image was delivered: a conditional request with
    /// the stored validators; 304 ends the load with no second result (and refreshes the
    /// entry's access date), new data gives a second result. A failed check is no new
    /// result: the cached image stands.
    func refresh(_ request: ImageRequest, _ task: ImageTask, cached: ImageCacheQueryResult) async throws(WebImageError) {
        guard !request.options.contains(.fromCacheOnly), delegate?.shouldDownloadImage(for: request.url) ?? true else {
            task.finish(nil, isLast: true)
            return
        }
        let validators = await readValidators(request)
        do throws(WebImageError) {
            switch try await download(request, task, validators: validators, isRevalidation: true) {
            case .response(let response):
                task.finish(try await complete(downloaded: response, for: request, task), isLast: true)
            case .notModified:
                // Reading the original entry once refreshes its access date, so age-based
                // expiry starts over.
                if let key = request.originalKey { _ = await request.cache.diskData(forKey: key) }
                task.finish(nil, isLast: true)
            }
        } catch where error.code != .cancelled {
            Self.logger.debug("Revalidating \(request.url.redactedForLog) failed: \(error)")
            task.finish(nil, isLast: true)
        }
    }

    /// Delivers `hit` when its stored freshness allows; otherwise revalidates it first
    /// (a 304 delivers it, and so does a failure within `stale-if-error`), or within
    /// `stale-while-revalidate` delivers it and revalidates in the background.
    private func deliverIfFresh(_ request: ImageRequest, _ task: ImageTask, _ hit: ImageCacheQueryResult) async throws(WebImageError) {
        let stored = await readValidators(request)
        switch stored?.freshness?.state(at: Date()) ?? .fresh {
        case .fresh:
            task.finish(request.result(hit), isLast: true)
        case .staleWhileRevalidate:
            task.finish(request.result(hit), isLast: true)
            revalidateInBackground(request, stored: stored)
        case .stale(let staleIfError):
            guard delegate?.shouldDownloadImage(for: request.url) ?? true else {
                task.finish(request.result(hit), isLast: true)
                return
            }
            do throws(WebImageError) {
                switch try await download(request, task, validators: stored, isRevalidation: true) {
                case .response(let response):
                    task.finish(try await complete(downloaded: response, for: request, task), isLast: true)
                case .notModified(let http):
                    if let key = request.originalKey {
                        await storeValidators(Self.merging(stored, with: http), forKey: key, in: request.cache)
                    }
                    task.finish(request.result(hit), isLast: true)
                }
            } catch where staleIfError && error.code != .cancelled {
                Self.logger.debug("Serving stale \(request.url.redactedForLog) (stale-if-error): \(error)")
                task.finish(request.result(hit), isLast: true)
            }
        }
    }

    /// Revalidates after a stale hit was delivered: a 304 refreshes the stored freshness,
    /// new data replaces the original's entry (a derived result is dropped, to be derived
    /// again from it). Runs in a task of its own whose token ``cancelAll()`` reaches.
    private func revalidateInBackground(_ request: ImageRequest, stored: HTTPValidators?) {
        guard let key = request.originalKey else { return }
        var options = request.loaderOptions
        options.insert(.lowPriority)
        options.remove(.progressiveLoad)
        // A result kept apart is derived again from the new data later: no decode now.
        if request.isKeptApart { options.insert(.avoidDecodeImage) }
        let canValidate = stored?.canValidate == true
        if canValidate { options.insert(.useHTTPCache) }
        let context = request.loaderContext(validators: canValidate ? stored : nil)
        let token = ImageLoadToken(url: request.url, priority: .low)
        trackRevalidation(token) { [self, options] in
            let observer = ImageLoadObserver(token: token)
            do throws(WebImageError) {
                let downloaded = try await Self.download(
                    request.url, from: request.loader, options: options, context: context, observer: observer, partial: nil)
                guard case .response(let response) = downloaded else {
                    if case .notModified(let http) = downloaded {
                        await storeValidators(Self.merging(stored, with: http), forKey: key, in: request.cache)
                    }
                    return
                }
                guard let data = response.data, response.http?.isNoStore != true else { return }
                let image = request.isKeptApart ? nil : response.image
                let validators = response.http?.validators
                request.cache.storeInBackground(
                    image, data: data, extendedData: validators.flatMap { $0.isEmpty ? nil : $0.cacheData },
                    forKey: key, cacheType: request.isKeptApart ? .disk : .all)
                if request.isKeptApart, let resultKey = request.key {
                    await request.cache.removeImage(forKey: resultKey, cacheType: .all)
                }
            } catch {
                Self.logger.debug("Revalidating \(request.url.redactedForLog) in the background failed: \(error)")
            }
        }
    }

    /// The validators stored with the load's original entry.
    func readValidators(_ request: ImageRequest) async -> HTTPValidators? {
        guard let key = request.originalKey else { return nil }
        return await request.cache.extendedData(forKey: key).flatMap(HTTPValidators.init(cacheData:))
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
