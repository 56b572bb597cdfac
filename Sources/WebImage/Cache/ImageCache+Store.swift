import Foundation

extension ImageCache {
    /// Stores in the caches `cacheType` names; see ``ImageCaching/store(_:data:forKey:cacheType:completion:)``.
    ///
    /// The memory part happens before this returns. The disk part writes `data`, or with
    /// no data encodes `image` on ``DecodeQueue/shared`` first. With neither there is
    /// nothing to write and the completion reports success.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) {
        if let image, cacheType.includesMemory, config.shouldCacheImagesInMemory {
            memoryCache.setValue(image, forKey: key, cost: image.cost)
        }
        guard cacheType.includesDisk, config.shouldUseDisk, data != nil || image != nil else {
            deliverer(forKey: key, completion: completion)(.success(()))
            return
        }
        pendingStores.begin()
        let report = deliverer(forKey: key, completion: completion)
        let deliver: @Sendable (Result<Void, WebImageError>) -> Void = { [pendingStores] result in
            report(result)
            pendingStores.end()
        }
        if let data {
            diskCache.store(data, forKey: key, completion: deliver)
        } else if let image {
            DecodeQueue.shared.submit { [self] in
                switch encode(image, forKey: key) {
                case .success(let encoded):
                    diskCache.store(encoded, forKey: key, completion: deliver)
                case .failure(let error):
                    deliver(.failure(error))
                }
            }
        }
    }

    /// The format an image stored without data is encoded in: its own format for an
    /// animated GIF, WebP or APNG (GIF for other animations), otherwise PNG when any
    /// pixel is not opaque and JPEG when all are.
    public static func preferredEncodingFormat(for image: DecodedImage) -> ImageFormat {
        if image.isAnimated {
            return [.gif, .webp, .apng].contains(image.format) ? image.format : .gif
        }
        return image.hasAlpha ? .png : .jpeg
    }

    private func encode(_ image: DecodedImage, forKey key: String) -> Result<Data, WebImageError> {
        let format = Self.preferredEncodingFormat(for: image)
        do {
            return .success(try config.coders.encode(image, as: format, options: config.encodeOptions))
        } catch {
            return .failure(WebImageError(
                .encodingFailed, "Cannot encode the image for \(key.redactedURLForLog) as \(format.rawValue) to cache it",
                underlying: error))
        }
    }

    /// A function that hands a store result to `completion` on the callback queue, or
    /// logs a failure nobody asked to hear about.
    private func deliverer(
        forKey key: String, completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) -> @Sendable (Result<Void, WebImageError>) -> Void {
        { [callbackQueue] result in
            if let completion {
                callbackQueue.async { completion(result) }
            } else if case .failure(let error) = result {
                Self.logger.error("Storing \(key.redactedURLForLog) in the disk cache failed: \(error)")
            }
        }
    }
}
