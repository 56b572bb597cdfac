import Foundation
import WebImage

/// Queries and lookups through the chain: the first answer in member order wins.
extension ImageCachesManager {
    /// Looks `key` up in the members the ``queryPolicy`` names; see
    /// ``WebImage/ImageCaching/queryImage(forKey:options:context:)``.
    ///
    /// Each member gets the same options and context. The first hit in member order is
    /// the result (copied into the earlier members with ``promotesHits``, the memory part
    /// before this returns); when every member missed, or there is none, the result is a
    /// miss. A member that fails is passed over like a miss, unless the task was cancelled:
    /// then this throws ``WebImageCodecs/WebImageError/Code/cancelled``.
    public func queryImage(
        forKey key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> ImageCacheQueryResult {
        let current = snapshot
        let members = current.query.members(of: current.caches)
        let found = current.query == .concurrent
            ? try await Self.firstHitConcurrently(members, key: key, options: options, context: context)
            : try await Self.firstHitSerially(members, key: key, options: options, context: context)
        guard let (index, hit) = found else { return .miss }
        if current.promotesHits, index > 0 {
            promote(hit, key: key, options: options, context: context, into: members[..<index])
        }
        return hit
    }

    /// ``QueryPolicy/serial``: one member at a time until one has it.
    private static func firstHitSerially(
        _ members: [any ImageCaching], key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> (Int, ImageCacheQueryResult)? {
        for (index, member) in members.enumerated() {
            if Task.isCancelled { throw .cancelled("The cache query was cancelled") }
            if let hit = try? await member.queryImage(forKey: key, options: options, context: context), hit.image != nil {
                return (index, hit)
            }
        }
        if Task.isCancelled { throw .cancelled("The cache query was cancelled") }
        return nil
    }

    /// ``QueryPolicy/concurrent``: every member at once; the first hit in member order
    /// once every earlier member has missed, and the queries still running are cancelled.
    private static func firstHitConcurrently(
        _ members: [any ImageCaching], key: String, options: WebImageOptions, context: WebImageContext
    ) async throws(WebImageError) -> (Int, ImageCacheQueryResult)? {
        let found = await withTaskGroup(of: (Int, ImageCacheQueryResult?).self) { group in
            for (index, member) in members.enumerated() {
                group.addTask {
                    let hit = try? await member.queryImage(forKey: key, options: options, context: context)
                    return (index, hit?.image != nil ? hit : nil)
                }
            }
            var answers: [ImageCacheQueryResult??] = Array(repeating: nil, count: members.count)
            for await (index, hit) in group {
                answers[index] = .some(hit)
                // Settled once every member before the first hit has answered.
                for (i, answer) in answers.enumerated() {
                    guard case .some(let hit) = answer else { break }
                    if let hit {
                        group.cancelAll()
                        return (i, hit) as (Int, ImageCacheQueryResult)?
                    }
                }
            }
            return nil
        }
        if found == nil, Task.isCancelled { throw .cancelled("The cache query was cancelled") }
        return found
    }

    /// Copies a hit into the members before the one that had it; see ``promotesHits``.
    private func promote(
        _ hit: ImageCacheQueryResult, key: String, options: WebImageOptions, context: WebImageContext,
        into earlier: ArraySlice<any ImageCaching>
    ) {
        let memoryKey = context.memoryKey(forKey: key)
        let image = options.contains(.decodeFirstFrameOnly) ? nil : hit.image
        for member in earlier {
            if memoryKey == key {
                member.storeInBackground(
                    image, data: hit.data, extendedData: nil, forKey: key, cacheType: hit.data == nil ? .memory : .all)
                continue
            }
            // A thumbnail: the decoded image under its own key, the full-size data under the key.
            if let image { member.storeInBackground(image, data: nil, extendedData: nil, forKey: memoryKey, cacheType: .memory) }
            if let data = hit.data { member.storeInBackground(nil, data: data, extendedData: nil, forKey: key, cacheType: .disk) }
        }
    }

    /// Where `key` is cached in the members the ``containsPolicy`` names: the first
    /// answer other than ``WebImage/ImageCacheType/none`` in member order.
    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        let current = snapshot
        let members = current.contains.members(of: current.caches)
        guard current.contains == .all else {
            for member in members {
                let found = await member.containsImage(forKey: key, cacheType: cacheType)
                if found != .none { return found }
            }
            return .none
        }
        let answers = await Self.everyMember(members) { member in await member.containsImage(forKey: key, cacheType: cacheType) }
        return answers.first { $0 != .none } ?? .none
    }

    /// The encoded data on disk for `key` in the first member that has it, asking the
    /// members the ``queryPolicy`` names one at a time.
    public func diskData(forKey key: String) async -> Data? {
        let current = snapshot
        for member in current.query.members(of: current.caches) {
            if let data = await member.diskData(forKey: key) { return data }
        }
        return nil
    }

    /// The extended data of `key` in the first member that has some, asking the members
    /// the ``queryPolicy`` names one at a time.
    public func extendedData(forKey key: String) async -> Data? {
        let current = snapshot
        for member in current.query.members(of: current.caches) {
            if let data = await member.extendedData(forKey: key) { return data }
        }
        return nil
    }

    /// Attaches `data` to `key`'s entry (`nil` removes it) in every member the
    /// ``storePolicy`` names, all at once.
    ///
    /// A member without the entry fails, which is expected when only some have it, so
    /// this succeeds when at least one member did and otherwise throws the first failure
    /// in member order (``WebImageCodecs/WebImageError/Code/cacheIOFailed`` with no member).
    public func setExtendedData(_ data: Data?, forKey key: String) async throws(WebImageError) {
        let current = snapshot
        let results = await Self.everyMember(current.store.members(of: current.caches)) { member in
            do throws(WebImageError) {
                try await member.setExtendedData(data, forKey: key)
                return Result<Void, WebImageError>.success(())
            } catch {
                return Result<Void, WebImageError>.failure(error)
            }
        }
        if results.contains(where: { if case .success = $0 { true } else { false } }) { return }
        if case .failure(let error)? = results.first { throw error }
        throw WebImageError(.cacheIOFailed, "No cache to attach the extended data of \(key.redactedURLForLog) to")
    }
}
