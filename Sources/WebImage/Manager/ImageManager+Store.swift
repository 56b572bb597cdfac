import Dispatch
import Foundation

/// The last stages: transform, store, deliver.
extension ImageManager {
    /// Transforms `image` (on ``DecodeQueue/shared`` when there is anything to do),
    /// stores what the load's context says, and delivers the final result.
    ///
    /// - Parameter download: what the loader brought; `nil` when `image` came from the
    ///   original's cache entry (nothing new to store for the original then).
    func complete(
        _ load: ManagedLoad, image: DecodedImage?, data: Data?, cacheType: ImageCacheType, download: Download?
    ) {
        guard !load.operation.isFinished else { return }
        let hook = download != nil ? delegate : nil
        guard let image, hook != nil || load.transformer != nil else {
            store(load, image: image, data: data, cacheType: cacheType, isReplaced: false, download: download)
            return
        }
        DecodeQueue.shared.submit { [self] in
            guard !load.operation.isFinished else { return }
            var output = image
            var isReplaced = false
            if let replaced = hook?.transformDownloadedImage(image, for: load.url) {
                output = replaced
                isReplaced = true
            }
            if let transformer = load.transformer {
                let transformed = ImageTransformers.apply(
                    transformer, to: output, forKey: load.sourceKey ?? "",
                    transformAnimatedImage: load.options.contains(.transformAnimatedImage))
                if let transformed {
                    output = transformed
                } else {
                    Self.logger.debug("\(transformer.transformerKey) could not transform \(load.url.redactedForLog)")
                }
            }
            let (finalImage, replaced) = (output, isReplaced)
            load.queue.async {
                self.store(load, image: finalImage, data: data, cacheType: cacheType, isReplaced: replaced, download: download)
            }
        } cancelled: {}
    }

    /// Stores the downloaded original (for derived results) and the result, then
    /// delivers; with ``WebImageOptions/waitStoreCache`` only once the writes are done.
    private func store(
        _ load: ManagedLoad, image: DecodedImage?, data: Data?, cacheType: ImageCacheType, isReplaced: Bool,
        download: Download?
    ) {
        let result = load.result(image: image, data: isReplaced ? nil : data, cacheType: cacheType, http: download?.http)
        let writes = DispatchGroup()
        if let key = load.key {
            if let download, load.isDerived, let originalKey = load.originalKey {
                // The thumbnail decode threw the full-size pixels away, so only a plain
                // transform has an original image worth keeping in memory.
                let original = load.context.thumbnailPixelSize == nil ? download.image : nil
                write(load, image: original, data: download.data, key: originalKey,
                      cacheType: load.context.originalStoreCacheType, validators: download.validators, group: writes)
            }
            if download != nil || load.isDerived {
                let serializer = load.context.cacheSerializer ?? cacheSerializer
                var diskData = load.isDerived || isReplaced ? nil : data
                if let serializer, let image, !load.isDerived, !isReplaced {
                    diskData = serializer(image, data, load.url)
                }
                let validators = load.isDerived ? nil : download?.validators
                write(load, image: image, data: diskData, key: key,
                      cacheType: load.context.storeCacheType, validators: validators, group: writes)
            }
        }
        guard load.options.contains(.waitStoreCache) else {
            load.operation.deliver(result, isLast: true, inline: true)
            return
        }
        writes.notify(queue: load.queue) {
            load.operation.deliver(result, isLast: true, inline: true)
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
