import Dispatch
import Foundation

/// The last stages: transform, store, deliver.
extension ImageManager {
    /// What the user hooks made of a finished image: the image to deliver and store, and
    /// the bytes to write for it on disk.
    private struct Finished: Sendable {
        var image: DecodedImage?
        /// The delegate replaced the image, so the downloaded data no longer matches it.
        var isReplaced = false
        /// The disk bytes of the result: the downloaded data, the serializer's answer, or
        /// `nil` (derived images are re-encoded by the cache).
        var diskData: Data?
    }

    /// Runs the user hooks that apply (the delegate's `transformDownloadedImage`, the
    /// transformer, the cache serializer) on ``DecodeQueue/shared``, never on the
    /// pipeline's queue, then stores what the load's context says and delivers.
    ///
    /// - Parameter download: what the loader brought; `nil` when `image` came from the
    ///   original's cache entry (nothing new to store for the original then).
    func complete(
        _ load: ManagedLoad, image: DecodedImage?, data: Data?, cacheType: ImageCacheType, download: Download?
    ) {
        guard !load.operation.isFinished else { return }
        let hook = download != nil ? delegate : nil
        let serializer = download != nil && !load.isKeptApart ? load.context.cacheSerializer ?? cacheSerializer : nil
        let plain = Finished(image: image, diskData: load.isKeptApart ? nil : data)
        guard let image, hook != nil || load.transformer != nil || serializer != nil else {
            store(load, plain, data: data, cacheType: cacheType, download: download)
            return
        }
        DecodeQueue.shared.submit { [self] in
            guard !load.operation.isFinished else { return }
            var finished = plain
            if let replaced = hook?.transformDownloadedImage(image, for: load.url) {
                finished = Finished(image: replaced, isReplaced: true, diskData: nil)
            }
            if let transformer = load.transformer, let input = finished.image {
                let transformAnimated = load.options.contains(.transformAnimatedImage)
                let transformed = input.animation != nil && transformAnimated
                    ? input.transformedFrameByFrame(by: transformer, forKey: load.sourceKey ?? "")
                    : ImageTransformers.apply(
                        transformer, to: input, forKey: load.sourceKey ?? "", transformAnimatedImage: transformAnimated)
                if let transformed {
                    finished.image = transformed
                } else {
                    Self.logger.debug("\(transformer.transformerKey) could not transform \(load.url.redactedForLog)")
                }
            }
            if let serializer, !finished.isReplaced, let output = finished.image {
                finished.diskData = serializer(output, data, load.url)
            }
            let result = finished
            load.queue.async { self.store(load, result, data: data, cacheType: cacheType, download: download) }
        } cancelled: {}
    }

    /// Stores the downloaded original (for results kept apart from it) and the result,
    /// then delivers; with ``WebImageOptions/waitStoreCache`` only once the writes are done.
    /// A lazy animation is kept in memory only: on disk its original's data stands for it.
    /// Runs on the pipeline's queue.
    private func store(
        _ load: ManagedLoad, _ finished: Finished, data: Data?, cacheType: ImageCacheType, download: Download?
    ) {
        let result = load.result(
            image: finished.image, data: finished.isReplaced ? nil : data, cacheType: cacheType, http: download?.http)
        let writes = DispatchGroup()
        if let key = load.key {
            if let download, load.isKeptApart, let originalKey = load.originalKey {
                // The thumbnail decode threw the full-size pixels away, so only a plain
                // transform has an original image worth keeping in memory; a lazy load's
                // is lazy, which the original's key must never give.
                let original = load.context.thumbnailPixelSize == nil && !load.isLazy ? download.image : nil
                write(load, image: original, data: download.data, key: originalKey,
                      cacheType: load.context.originalStoreCacheType, validators: download.validators, group: writes)
            }
            if download != nil || load.isKeptApart {
                let validators = load.isKeptApart ? nil : download?.validators
                var cacheType = load.context.storeCacheType
                if load.isLazy, finished.image?.animation != nil || !load.isDerived {
                    cacheType = cacheType.includesMemory ? .memory : .none
                }
                write(load, image: finished.image, data: finished.diskData, key: key,
                      cacheType: cacheType, validators: validators, group: writes)
            }
        }
        guard load.options.contains(.waitStoreCache) else {
            load.operation.deliver(result, isLast: true, inline: false)
            return
        }
        writes.notify(queue: load.queue) {
            load.operation.deliver(result, isLast: true, inline: false)
        }
    }

    /// One store, then the validators of the entry it wrote; `group` is left when both are done.
    private func write(
        _ load: ManagedLoad, image: DecodedImage?, data: Data?, key: String, cacheType: ImageCacheType,
        validators: HTTPValidators?, group: DispatchGroup
    ) {
        let cacheType = load.options.storeCacheType(cacheType)
        guard cacheType != .none, image != nil || data != nil else { return }
        group.enter()
        load.cache.store(image, data: data, forKey: key, cacheType: cacheType) { [self] stored in
            switch stored {
            case .failure(let error):
                Self.logger.error("Storing \(key.redactedURLForLog) failed: \(error)")
                group.leave()
            case .success:
                guard let validators, cacheType.includesDisk, data != nil else {
                    group.leave()
                    return
                }
                storeValidators(validators, forKey: key, in: load.cache) { group.leave() }
            }
        }
    }
}
