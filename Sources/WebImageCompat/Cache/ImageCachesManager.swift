import Foundation
import Synchronization
import WebImage

/// Several caches behind one ``WebImage/ImageCaching``: SDWebImage's `SDImageCachesManager`.
///
/// The members are asked in list order, first is highest priority. Each kind of
/// operation follows its policy: queries go ``QueryPolicy/serial`` by default (the first
/// hit wins and later members are not asked), stores, removals and clears reach
/// ``OperationPolicy/all`` members, and ``containsImage(forKey:cacheType:)``
/// asks all of them. A hit in a later member is not copied into earlier ones unless
/// ``promotesHits`` is set, as SDWebImage never does.
///
/// A private memory and disk cache in front of a disk cache shared by several processes:
///
/// ```swift
/// var sharedConfig = ImageCache.Config()
/// sharedConfig.shouldCacheImagesInMemory = false  // the local cache keeps the decoded images
/// let chain = ImageCachesManager(caches: [
///     ImageCache(namespace: "local"),
///     ImageCache(namespace: "shared", directory: URL(fileURLWithPath: "/srv/images"), config: sharedConfig),
/// ])
/// chain.promotesHits = true  // a hit in the shared directory is copied into the local cache
/// let manager = ImageManager(cache: chain, loader: ImageLoadersManager.shared)
/// ```
///
/// Thread-safe: the members and policies can be changed at any time and apply to the
/// operations started afterwards. Operations run on the calling task; a policy that asks
/// several members at once runs each member's operation in a child task. Its SDWebImage
/// callback forms come from ``ImageCachingCallbacks``. It does not answer
/// ``WebImage/ImageCaching/queryImageSynchronously(forKey:options:context:)``: a blocking query
/// of the chain answers from memory.
public final class ImageCachesManager: ImageCaching {
    private struct State {
        var caches: [any ImageCaching]
        var queryPolicy = QueryPolicy.serial
        var storePolicy = OperationPolicy.all
        var removePolicy = OperationPolicy.all
        var clearPolicy = OperationPolicy.all
        var containsPolicy = ContainsPolicy.all
        var promotesHits = false
    }
    // Member caches are user code: every method copies what it needs out of the lock
    // before calling any of them.
    private let state: Mutex<State>
    /// A chain of `caches` (none by default), asked in that order.
    public init(caches: [any ImageCaching] = []) {
        state = Mutex(State(caches: caches))
    }

    // MARK: Members and policies

    /// The members, highest priority first. Default: those given to the initializer.
    public var caches: [any ImageCaching] {
        get { state.withLock { $0.caches } }
        set { state.withLock { $0.caches = newValue } }
    }

    /// Appends `cache`, the lowest priority so far.
    public func addCache(_ cache: any ImageCaching) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes every occurrence of the cache object `cache`.
    public func removeCache(_ cache: any ImageCaching & AnyObject) {
        state.withLock { s in s.caches.removeAll { ($0 as AnyObject) === cache } }
    }

    /// How queries ask the members. Default ``QueryPolicy/serial``.
    public var queryPolicy: QueryPolicy {
        get { state.withLock { $0.queryPolicy } }
        set { state.withLock { $0.queryPolicy = newValue } }
    }

    /// Which members a store writes to. Default ``OperationPolicy/all``.
    public var storePolicy: OperationPolicy {
        get { state.withLock { $0.storePolicy } }
        set { state.withLock { $0.storePolicy = newValue } }
    }

    /// Which members a removal reaches. Default ``OperationPolicy/all``.
    public var removePolicy: OperationPolicy {
        get { state.withLock { $0.removePolicy } }
        set { state.withLock { $0.removePolicy = newValue } }
    }

    /// Which members a clear empties. Default ``OperationPolicy/all``.
    public var clearPolicy: OperationPolicy {
        get { state.withLock { $0.clearPolicy } }
        set { state.withLock { $0.clearPolicy = newValue } }
    }

    /// How ``containsImage(forKey:cacheType:)`` asks the members. Default
    /// ``ContainsPolicy/all``.
    public var containsPolicy: ContainsPolicy {
        get { state.withLock { $0.containsPolicy } }
        set { state.withLock { $0.containsPolicy = newValue } }
    }

    /// Copy a query's hit in a later member into the earlier members that missed, so
    /// the next query stops sooner: a memory cache in front of a local disk in front of
    /// a directory shared by several processes. Default `false`, as in SDWebImage.
    ///
    /// A hit with its encoded data is stored in the earlier members' memory and disk; a
    /// memory hit without data only in their memory, since re-encoding it would cost
    /// more than the copy saves. A ``WebImage/WebImageOptions/decodeFirstFrameOnly`` image is
    /// not kept in memory (it would stand in for the whole animation), and a thumbnail
    /// goes to memory under ``WebImage/WebImageContext/memoryKey(forKey:)`` while the
    /// full-size data goes to disk under the key. The copy's memory part is done before
    /// the query's completion runs; its disk part finishes in the background (see ``flush()``).
    /// ``imageFromMemory(forKey:)`` never copies.
    public var promotesHits: Bool {
        get { state.withLock { $0.promotesHits } }
        set { state.withLock { $0.promotesHits = newValue } }
    }

    /// The members and policies as they are now, copied out of the lock.
    var snapshot: (caches: [any ImageCaching], query: QueryPolicy, store: OperationPolicy,
                   remove: OperationPolicy, clear: OperationPolicy, contains: ContainsPolicy, promotesHits: Bool) {
        state.withLock { s in
            (s.caches, s.queryPolicy, s.storePolicy, s.removePolicy, s.clearPolicy, s.containsPolicy, s.promotesHits)
        }
    }

    // MARK: ImageCaching

    /// The image in memory for `key` in the first member the query policy asks that has
    /// it, or `nil`. Runs on the caller's thread and copies nothing (see ``promotesHits``).
    public func imageFromMemory(forKey key: String) -> DecodedImage? {
        let current = snapshot
        for member in current.query.members(of: current.caches) {
            if let image = member.imageFromMemory(forKey: key) { return image }
        }
        return nil
    }

    /// Stores in every member the ``storePolicy`` names, all at once, and returns when
    /// every member finished: throws the first failure in member order.
    public func store(
        _ image: DecodedImage?, data: Data?, forKey key: String, cacheType: ImageCacheType
    ) async throws(WebImageError) {
        let current = snapshot
        let results = await Self.everyMember(current.store.members(of: current.caches)) { member in
            do throws(WebImageError) {
                try await member.store(image, data: data, forKey: key, cacheType: cacheType)
                return Result<Void, WebImageError>.success(())
            } catch {
                return Result<Void, WebImageError>.failure(error)
            }
        }
        for case .failure(let error) in results { throw error }
    }

    /// Hands the store to every member the ``storePolicy`` names; each does its memory
    /// part before this returns and logs its own failures.
    public func storeInBackground(
        _ image: DecodedImage?, data: Data?, extendedData: Data?, forKey key: String, cacheType: ImageCacheType
    ) {
        let current = snapshot
        for member in current.store.members(of: current.caches) {
            member.storeInBackground(image, data: data, extendedData: extendedData, forKey: key, cacheType: cacheType)
        }
    }

    /// Removes `key` from every member the ``removePolicy`` names, all at once.
    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        let current = snapshot
        _ = await Self.everyMember(current.remove.members(of: current.caches)) { member in
            await member.removeImage(forKey: key, cacheType: cacheType)
        }
    }

    /// Empties every member the ``clearPolicy`` names, all at once.
    public func clear(cacheType: ImageCacheType) async {
        let current = snapshot
        _ = await Self.everyMember(current.clear.members(of: current.caches)) { member in
            await member.clear(cacheType: cacheType)
        }
    }

    /// Returns when every member's ``WebImage/ImageCaching/flush()`` returned, whatever the policies.
    public func flush() async {
        _ = await Self.everyMember(caches) { member in await member.flush() }
    }

    /// Runs `work` on every member at once (on the calling task when there is one) and
    /// returns the answers in member order.
    static func everyMember<Answer: Sendable>(
        _ members: [any ImageCaching], _ work: @escaping @Sendable (any ImageCaching) async -> Answer
    ) async -> [Answer] {
        if members.count == 1 { return [await work(members[0])] }
        return await withTaskGroup(of: (Int, Answer).self) { group in
            for (index, member) in members.enumerated() {
                group.addTask { (index, await work(member)) }
            }
            var answers: [Answer?] = Array(repeating: nil, count: members.count)
            for await (index, answer) in group { answers[index] = answer }
            return answers.compactMap { $0 }
        }
    }
}
