import Foundation

/// The last stages: the user hooks and the transformer, the store, the result.
extension ImageManager {
    /// A download's result: `no-store` responses stay in memory whatever the cache policy.
    func complete(
        downloaded response: ImageLoadResponse, for request: ImageRequest, _ task: ImageTask
    ) async throws(WebImageError) -> ImageLoadResult {
        let target = response.http?.isNoStore == true ? request.storingInMemoryOnly() : request
        return try await complete(target, task, image: response.image, data: response.data, cacheType: .none, download: response)
    }

    /// Runs the user hooks that apply (the delegate's `transformDownloadedImage`, the
    /// transformer, the cache serializer) on ``decodeQueue``, then stores what the load's
    /// context says and returns the result.
    ///
    /// - Parameter download: what the loader brought; `nil` when `image` came from the
    ///   original's cache entry (nothing new to store for the original then).
    func complete(
        _ request: ImageRequest, _ task: ImageTask, image: DecodedImage?, data: Data?, cacheType: ImageCacheType,
        download: ImageLoadResponse?
    ) async throws(WebImageError) -> ImageLoadResult {
        try task.checkCancelled()
        let hook = download != nil ? delegate : nil
        let serializer = download != nil && !request.isKeptApart ? request.context.cacheSerializer ?? cacheSerializer : nil
        var output = (image: image, isReplaced: false, diskData: request.isKeptApart ? nil : data)
        if let image, hook != nil || request.transformer != nil || serializer != nil {
            output = try await decodeQueue.perform {
                .success(Self.applyHooks(request, image: image, data: data, hook: hook, serializer: serializer))
            }
            try task.checkCancelled()
        }
        await store(request, image: output.image, diskData: output.diskData, download: download)
        return request.result(
            image: output.image, data: output.isReplaced ? nil : data, cacheType: cacheType, http: download?.http)
    }

    /// The hooks, in order, on the calling thread (a decode-queue thread). A replaced
    /// image has no disk data of its own (the downloaded bytes no longer describe it);
    /// derived images are encoded by the cache.
    private static func applyHooks(
        _ request: ImageRequest, image: DecodedImage, data: Data?, hook: (any ImageManagerDelegate)?,
        serializer: WebImageContext.CacheSerializer?
    ) -> (image: DecodedImage?, isReplaced: Bool, diskData: Data?) {
        var output = (image: Optional(image), isReplaced: false, diskData: request.isKeptApart ? nil : data)
        if let replaced = hook?.transformDownloadedImage(image, for: request.url) {
            output = (replaced, true, nil)
        }
        if let transformer = request.transformer, let input = output.image {
            let transformAnimated = request.options.contains(.transformAnimatedImage)
            let transformed = input.animation != nil && transformAnimated
                ? input.transformedFrameByFrame(by: transformer, forKey: request.sourceKey ?? "")
                : ImageTransform.apply(
                    transformer, to: input, forKey: request.sourceKey ?? "", transformAnimatedImage: transformAnimated)
            if let transformed {
                output.image = transformed
            } else {
                logger.debug("\(transformer.transformerKey) could not transform \(request.url.redactedForLog)")
            }
        }
        if let serializer, !output.isReplaced, let result = output.image {
            output.diskData = serializer(result, data, request.url)
        }
        return output
    }

    /// Stores the downloaded original (for results kept apart from it) and the result:
    /// the memory parts now, the disk parts in the background, or before returning with
    /// ``WebImageOptions/waitStoreCache``. A lazy animation is kept in memory only: on
    /// disk its original's data stands for it.
    private func store(_ request: ImageRequest, image: DecodedImage?, diskData: Data?, download: ImageLoadResponse?) async {
        guard let key = request.key else { return }
        if let download, request.isKeptApart, let originalKey = request.originalKey {
            // The thumbnail decode threw the full-size pixels away, so only a plain
            // transform has an original image worth keeping in memory; a lazy load's is
            // lazy, which the original's key must never give.
            let original = request.context.thumbnailPixelSize == nil && !request.isLazy ? download.image : nil
            await write(request, image: original, data: download.data, key: originalKey,
                        cacheType: request.context.originalStoreCacheType, validators: download.http?.validators)
        }
        guard download != nil || request.isKeptApart else { return }
        var cacheType = request.context.storeCacheType
        if request.isLazy, image?.animation != nil || !request.isDerived {
            cacheType = cacheType.includesMemory ? .memory : .none
        }
        await write(request, image: image, data: diskData, key: key, cacheType: cacheType,
                    validators: request.isKeptApart ? nil : download?.http?.validators)
    }

    /// One store, then the validators of the entry it wrote.
    private func write(
        _ request: ImageRequest, image: DecodedImage?, data: Data?, key: String, cacheType: ImageCacheType,
        validators: HTTPValidators?
    ) async {
        let cacheType = request.storeCacheType(cacheType)
        guard cacheType != .none, image != nil || data != nil else { return }
        // A new entry starts without extended data, so empty validators need no write.
        let extended = cacheType.includesDisk && data != nil ? validators.flatMap { $0.isEmpty ? nil : $0.cacheData } : nil
        guard request.options.contains(.waitStoreCache) else {
            request.cache.storeInBackground(image, data: data, extendedData: extended, forKey: key, cacheType: cacheType)
            return
        }
        do throws(WebImageError) {
            try await request.cache.store(image, data: data, forKey: key, cacheType: cacheType)
            if let extended { try await request.cache.setExtendedData(extended, forKey: key) }
        } catch {
            Self.logger.error("Storing \(key.redactedURLForLog) failed: \(error)")
        }
    }
}
