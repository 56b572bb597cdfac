import Dispatch
import Foundation
import WebImage

/// A cache with the callback forms: completion handlers on a `DispatchQueue`, for code
/// that is not `async` (SDWebImage style), adapted over the `async` requirements of
/// ``WebImage/ImageCaching``.
///
/// Why a refinement and not more requirements on ``WebImage/ImageCaching``: the core seam stays
/// free of queues and completion handlers, so a custom cache implements the `async`
/// requirements only; adopting this protocol (usually with no code at all) adds every
/// callback form. ``ImageCache`` and ``ImageCachesManager`` adopt it.
///
/// Where the callbacks run: a query's completion runs on its context's
/// `WebImageContext.callbackQueue` (SDWebImage's `callbackQueue` context option),
/// else on ``callbackQueue``; every other completion on ``callbackQueue``. The `async` work
/// itself runs in a task, where the `async` form runs it.
public protocol ImageCachingCallbacks: ImageCaching {
    /// Where the callback forms deliver when a query's context names no queue. The
    /// default, ``ImageCache`` and ``ImageCachesManager`` included, is one
    /// serial queue shared by every cache that names none (SDWebImage's default is the
    /// main queue, which a Linux process need not be running); a conformer may return
    /// its own.
    var callbackQueue: DispatchQueue { get }
}

extension ImageCachingCallbacks {
    /// ``WebImage/ImageCaching/queryImage(forKey:options:context:)`` with a completion, returning the operation
    /// that cancels it.
    ///
    /// The completion runs exactly once: with the result, or with
    /// ``WebImageCodecs/WebImageError/Code/cancelled`` when the operation is cancelled first. It runs on
    /// the caller's thread, before this returns, only when asked:
    /// - ``WebImage/WebImageOptions/queryMemorySync``: a memory hit (and a miss with
    ///   ``WebImage/WebImageOptions/queryMemoryOnly``), answered by ``WebImage/ImageCaching/imageFromMemory(forKey:)``;
    /// - ``WebImage/WebImageOptions/queryDiskDataSync`` (and ``WebImage/WebImageOptions/queryMemoryDataSync``
    ///   with ``WebImage/WebImageOptions/queryMemoryData``): the whole query, disk read and decode
    ///   included, blocking the calling thread, when the cache answers
    ///   ``WebImage/ImageCaching/queryImageSynchronously(forKey:options:context:)`` (an ``ImageCache``
    ///   does); otherwise a memory hit as with ``WebImage/WebImageOptions/queryMemorySync``.
    @discardableResult
    public func queryImage(
        forKey key: String, options: WebImageOptions = [], context: WebImageContext = .init(),
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation {
        let operation = CacheQueryOperation(callbackQueue: context.callbackQueue ?? callbackQueue, completion: completion)
        if let answer = synchronousAnswer(forKey: key, options: options, context: context) {
            operation.finish(with: .success(answer), synchronously: true)
            return operation
        }
        let task = Task {
            do throws(WebImageError) {
                operation.finish(with: .success(try await queryImage(forKey: key, options: options, context: context)))
            } catch {
                operation.finish(with: .failure(error))
            }
        }
        operation.onCancel { task.cancel() }
        return operation
    }

    /// The answer the options ask to have before `queryImage` returns, if there is one.
    private func synchronousAnswer(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) -> ImageCacheQueryResult? {
        let blocking = options.contains(.queryDiskDataSync)
            || options.isSuperset(of: [.queryMemoryData, .queryMemoryDataSync])
        if blocking, let answer = queryImageSynchronously(forKey: key, options: options, context: context) {
            return answer
        }
        guard options.contains(.queryMemorySync) || blocking, !options.contains(.queryDiskOnly),
              !options.contains(.queryMemoryData) else { return nil }
        if var image = imageFromMemory(forKey: context.memoryKey(forKey: key)) {
            if options.contains(.decodeFirstFrameOnly) { image = image.firstFrame }
            WebImageMetrics.memoryHits.increment()
            return ImageCacheQueryResult(image: image, cacheType: .memory)
        }
        return options.contains(.queryMemoryOnly) ? .miss : nil
    }

    /// ``WebImage/ImageCaching/diskData(forKey:)`` with a completion on the cache's callback queue.
    public func diskData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        deliver(completion) { await diskData(forKey: key) }
    }

    /// ``WebImage/ImageCaching/extendedData(forKey:)`` with a completion on the cache's callback queue.
    public func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        deliver(completion) { await extendedData(forKey: key) }
    }

    /// ``WebImage/ImageCaching/setExtendedData(_:forKey:)`` with a completion on the cache's callback queue.
    public func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) {
        deliver(completion) {
            do throws(WebImageError) {
                try await setExtendedData(data, forKey: key)
                return Result<Void, WebImageError>.success(())
            } catch {
                return .failure(error)
            }
        }
    }

    /// ``WebImage/ImageCaching/store(_:data:forKey:cacheType:)`` with a completion on the cache's callback queue
    /// once the disk part is done. Without a completion it is
    /// ``WebImage/ImageCaching/storeInBackground(_:data:extendedData:forKey:cacheType:)``: the memory part is
    /// done when this returns and failures are logged.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType,
        completion: (@Sendable (Result<Void, WebImageError>) -> Void)?
    ) {
        guard let completion else {
            storeInBackground(image, data: data, extendedData: nil, forKey: key, cacheType: cacheType)
            return
        }
        deliver(completion) {
            do throws(WebImageError) {
                try await store(image, data: data, forKey: key, cacheType: cacheType)
                return Result<Void, WebImageError>.success(())
            } catch {
                return .failure(error)
            }
        }
    }

    /// ``WebImage/ImageCaching/removeImage(forKey:cacheType:)`` with a completion on the cache's callback queue.
    public func removeImage(forKey key: String, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        deliver(completion.map { done in { _ in done() } }) { await removeImage(forKey: key, cacheType: cacheType) }
    }

    /// ``WebImage/ImageCaching/containsImage(forKey:cacheType:)`` with a completion on the cache's callback queue.
    public func containsImage(
        forKey key: String, cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheType) -> Void
    ) {
        deliver(completion) { await containsImage(forKey: key, cacheType: cacheType) }
    }

    /// ``WebImage/ImageCaching/clear(cacheType:)`` with a completion on the cache's callback queue.
    public func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        deliver(completion.map { done in { _ in done() } }) { await clear(cacheType: cacheType) }
    }

    /// Runs `work` in a task and hands its answer to `completion` on the callback queue.
    private func deliver<T: Sendable>(
        _ completion: (@Sendable (T) -> Void)?, _ work: @escaping @Sendable () async -> T
    ) {
        let queue = callbackQueue
        Task {
            let answer = await work()
            if let completion { queue.async { completion(answer) } }
        }
    }

    public var callbackQueue: DispatchQueue { ImageCachingCallbackQueue.shared }
}

/// The serial queue of the callback forms of caches that name none.
enum ImageCachingCallbackQueue {
    static let shared = DispatchQueue(label: "WebImage.ImageCaching.callbacks")
}

extension ImageCache: ImageCachingCallbacks {}
extension ImageCachesManager: ImageCachingCallbacks {}
