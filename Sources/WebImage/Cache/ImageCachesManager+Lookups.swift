import Foundation

extension ImageCachesManager {
    /// Where `key` is cached among the caches `cacheType` names, asked as the
    /// ``containsPolicy`` says: the first answer other than ``ImageCacheType/none`` in
    /// member order, or ``ImageCacheType/none``. `completion` runs on the manager's
    /// callback queue.
    public func containsImage(
        forKey key: String, cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheType) -> Void
    ) {
        let current = snapshot
        let members = current.contains.members(of: current.caches)
        let deliver: @Sendable (ImageCacheType?) -> Void = { [callbackQueue] found in
            callbackQueue.async { completion(found ?? .none) }
        }
        let isHit: @Sendable (ImageCacheType) -> Bool = { $0 != .none }
        guard current.contains == .all, !members.isEmpty else {
            Self.askSerially(members, ask: { member, reply in
                member.containsImage(forKey: key, cacheType: cacheType, completion: reply)
            }, isHit: isHit, done: deliver)
            return
        }
        let answers = MemberAnswers<ImageCacheType>(count: members.count)
        for (index, member) in members.enumerated() {
            member.containsImage(forKey: key, cacheType: cacheType) { found in
                switch answers.recordFirst(found, at: index, isHit: isHit) {
                case .hit(_, let found)?: deliver(found)
                case .allMissed?: deliver(nil)
                case nil: break
                }
            }
        }
    }

    /// The encoded data on disk for `key` in the first member that has it, asking the
    /// members the ``queryPolicy`` names one at a time; `completion` runs on the
    /// manager's callback queue.
    public func diskData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        firstData(completion: completion) { member, reply in member.diskData(forKey: key, completion: reply) }
    }

    /// The extended data of `key` in the first member that has some, asking the members
    /// the ``queryPolicy`` names one at a time; `completion` runs on the manager's
    /// callback queue.
    public func extendedData(forKey key: String, completion: @escaping @Sendable (Data?) -> Void) {
        firstData(completion: completion) { member, reply in member.extendedData(forKey: key, completion: reply) }
    }

    /// Attaches `data` to `key`'s entry (`nil` removes it) in every member the
    /// ``storePolicy`` names, all at once.
    ///
    /// A member without the entry fails, which is expected when only some have it, so
    /// `completion` gets success when at least one member succeeded and otherwise the
    /// first failure in member order (``WebImageError/Code/cacheIOFailed`` with no
    /// member). It runs on the manager's callback queue.
    public func setExtendedData(
        _ data: Data?, forKey key: String, completion: @escaping @Sendable (Result<Void, WebImageError>) -> Void
    ) {
        let current = snapshot
        let noMember = WebImageError(.cacheIOFailed, "No cache to attach the extended data of \(key.redactedURLForLog) to")
        fanOut(current.store.members(of: current.caches), empty: .failure(noMember)) { member, reply in
            member.setExtendedData(data, forKey: key, completion: reply)
        } combine: { results in
            results.contains { if case .success = $0 { true } else { false } } ? .success(()) : results[0]
        } completion: { completion($0) }
    }

    /// Asks the members the query policy names for some data, one at a time, and hands
    /// the first non-`nil` answer to `completion` on the callback queue.
    private func firstData(
        completion: @escaping @Sendable (Data?) -> Void,
        ask: @escaping @Sendable (any ImageCaching, @escaping @Sendable (Data?) -> Void) -> Void
    ) {
        let current = snapshot
        Self.askSerially(current.query.members(of: current.caches), ask: ask, isHit: { $0 != nil }) { [callbackQueue] data in
            callbackQueue.async { completion(data ?? nil) }
        }
    }
}
