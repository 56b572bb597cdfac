import Foundation
import Tracing
import WebImage

/// A ``WebImage/TieredCache`` whose lookups are spans, one per tier asked:
/// `cache.<stage>.memory` and `cache.<stage>.disk`, each with `webimage.cache.hit`. Used in
/// place of the cache only while tracing (``ProxyTracing/cache(_:stage:tracing:)``).
///
/// Lookups run on the caller's task, as the cache's own; the spans are children of the
/// task's current span.
final class TracedCache<Value: DiskStorable>: PipelineStageCache {
    let base: TieredCache<Value>
    let memoryName: String
    let diskName: String

    init(_ base: TieredCache<Value>, stage: String) {
        self.base = base
        memoryName = "cache.\(stage).memory"
        diskName = "cache.\(stage).disk"
    }

    func memoryValue(forKey key: String) -> Value? {
        let span = InstrumentationSystem.tracer.startSpan(memoryName, context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        let hit = base.memoryValue(forKey: key)
        span.attributes[ProxyTracing.cacheHit] = hit != nil
        return hit
    }

    /// The disk tier, as ``WebImage/TieredCache/storedValue(forKey:)`` reads it. The memory
    /// tier is looked at again first without a span: the stage asked it a moment before
    /// (an entry stored meanwhile by a render that just ended is taken, as the cache does).
    func storedValue(forKey key: String) async -> Value? {
        if let hit = base.memory.value(forKey: key) { return hit }
        let span = InstrumentationSystem.tracer.startSpan(diskName, context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        let hit = await base.diskValue(forKey: key)
        span.attributes[ProxyTracing.cacheHit] = hit != nil
        return hit
    }

    func store(_ value: Value, forKey key: String) { base.store(value, forKey: key) }

    func renew(_ value: Value, forKey key: String) { base.renew(value, forKey: key) }
}
