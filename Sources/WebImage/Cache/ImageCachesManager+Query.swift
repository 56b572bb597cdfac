import Dispatch
import Foundation

extension ImageCachesManager {
    /// Looks `key` up in the members the ``queryPolicy`` names; see
    /// ``ImageCaching/queryImage(forKey:options:context:completion:)``.
    ///
    /// Each member gets the same options and context. The first hit in member order is
    /// the result (copied into the earlier members with ``promotesHits``); when every
    /// member missed, or there is none, the result is a miss. Cancelling the returned
    /// operation cancels whichever member queries are running and delivers
    /// ``WebImageError/Code/cancelled`` once.
    ///
    /// The completion runs on the context's callback queue, or the manager's. With
    /// ``ImageCacheOptions/queryMemorySync`` (or ``ImageCacheOptions/queryDiskDataSync``)
    /// it runs on the caller's thread before this returns when the members answered
    /// that way: with ``QueryPolicy/serial``, a memory hit in the first member, or
    /// ``ImageCacheOptions/queryMemoryOnly`` memory lookups all along the chain.
    @discardableResult
    public func queryImage(
        forKey key: String, options: ImageCacheOptions = [], context: ImageCacheContext = .init(),
        completion: @escaping CacheQueryOperation.Completion
    ) -> CacheQueryOperation {
        let current = snapshot
        let operation = CacheQueryOperation(callbackQueue: context.callbackQueue ?? callbackQueue, completion: completion)
        let scope = CallScope()
        defer { scope.end() }
        let query = ChainedQuery(
            key: key, options: options, context: context, members: current.query.members(of: current.caches),
            promotesHits: current.promotesHits, operation: operation, scope: scope)
        if current.query == .concurrent {
            query.askAll()
        } else {
            query.ask(0)
        }
        return operation
    }
}

/// One query through the chain: asks members, and delivers the first hit once.
private struct ChainedQuery: Sendable {
    let key: String
    let options: ImageCacheOptions
    let context: ImageCacheContext
    let members: [any ImageCaching]
    let promotesHits: Bool
    let operation: CacheQueryOperation
    let scope: ImageCachesManager.CallScope

    /// ``ImageCachesManager/QueryPolicy/serial``: asks member `index`, and on a miss the next.
    func ask(_ index: Int) {
        guard index < members.count else {
            finish(.miss)
            return
        }
        guard !operation.isCancelled else { return }
        let memberOperation = members[index].queryImage(forKey: key, options: options, context: context) { result in
            switch result {
            case .success(let hit) where hit.image != nil:
                deliver(hit, from: index)
            case .success:
                ask(index + 1)
            case .failure:
                // Only a cancel fails a query, and only this chain holds the member's
                // operation; a member that fails anyway is passed over like a miss.
                guard !operation.isCancelled else { return }
                ask(index + 1)
            }
        }
        operation.onCancel { memberOperation.cancel() }
    }

    /// ``ImageCachesManager/QueryPolicy/concurrent``: asks every member now; the first
    /// hit in member order is delivered once every earlier member has missed, and the
    /// queries still running are cancelled.
    func askAll() {
        guard !members.isEmpty else {
            finish(.miss)
            return
        }
        let answers = ImageCachesManager.MemberAnswers<ImageCacheQueryResult>(count: members.count)
        let running = ImageCachesManager.CancelGroup()
        operation.onCancel { running.cancel() }
        for (index, member) in members.enumerated() {
            // A member that answered inline (queryMemorySync) may have settled it already.
            guard !answers.isSettled else { break }
            let memberOperation = member.queryImage(forKey: key, options: options, context: context) { result in
                let answer = (try? result.get()) ?? .miss
                switch answers.recordFirst(answer, at: index, isHit: { $0.image != nil }) {
                case .hit(let winner, let hit)?:
                    running.cancel()
                    deliver(hit, from: winner)
                case .allMissed?:
                    finish(.miss)
                case nil:
                    break
                }
            }
            running.add { memberOperation.cancel() }
        }
    }

    private func deliver(_ hit: ImageCacheQueryResult, from index: Int) {
        if promotesHits, index > 0, !operation.isFinished {
            promote(hit, into: members[..<index])
        }
        finish(hit)
    }

    /// On the caller's thread when the answer came back inside `queryImage`, otherwise
    /// on the operation's callback queue.
    private func finish(_ result: ImageCacheQueryResult) {
        operation.finish(with: .success(result), synchronously: scope.isInside)
    }

    /// Copies a hit into the members before the one that had it; see ``ImageCachesManager/promotesHits``.
    private func promote(_ hit: ImageCacheQueryResult, into earlier: ArraySlice<any ImageCaching>) {
        let memoryKey = context.memoryKey(forKey: key)
        let image = options.contains(.decodeFirstFrameOnly) ? nil : hit.image
        for member in earlier {
            if memoryKey == key {
                member.store(image, data: hit.data, forKey: key, cacheType: hit.data == nil ? .memory : .all, completion: nil)
                continue
            }
            // A thumbnail: the decoded image under its own key, the full-size data under the key.
            if let image { member.store(image, data: nil, forKey: memoryKey, cacheType: .memory, completion: nil) }
            if let data = hit.data { member.store(nil, data: data, forKey: key, cacheType: .disk, completion: nil) }
        }
    }
}
