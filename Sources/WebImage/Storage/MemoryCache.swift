import Synchronization

/// A thread-safe, least-recently-used memory cache with cost and count limits.
///
/// Every operation is O(1): entries live in a dense array of slots threaded by a
/// doubly linked recency list (indices, not references, so there is no per-entry
/// allocation and nothing for ARC to walk), and a dictionary maps keys to slots.
/// A hit makes the entry the most recent; when a limit is exceeded the least recent
/// entries go first. Safe to call from any thread; each call holds one lock briefly.
///
/// ```swift
/// let cache = MemoryCache<String, DecodedImage>(totalCostLimit: 256 << 20)
/// cache.setValue(image, forKey: url, cost: image.cost)
/// let hit = cache.value(forKey: url)
/// ```
///
/// The hot paths are `@inlinable` so that callers in other modules get code specialized
/// for their key and value types; unspecialized generic calls were 4× slower than a plain
/// `Mutex<[Key: Value]>` in the benchmark.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let state: Mutex<LRUState<Key, Value>>

    /// Creates an empty cache. A limit of 0, the default, means no limit; a negative
    /// limit becomes 0. `entryCostLimit` is the largest cost one entry may have (0, the
    /// default: ``totalCostLimit``).
    public init(totalCostLimit: Int = 0, countLimit: Int = 0, entryCostLimit: Int = 0) {
        state = Mutex(LRUState(costLimit: max(0, totalCostLimit), countLimit: max(0, countLimit),
                               entryCostLimit: max(0, entryCostLimit)))
    }

    /// The largest cost one entry may have; 0 means ``totalCostLimit``. A larger entry is
    /// not kept (Nuke's `entryCostLimit`: one big image must not flush many small ones).
    public var entryCostLimit: Int {
        get { state.withLock { $0.entryCostLimit } }
        set { state.withLock { $0.entryCostLimit = max(0, newValue) } }
    }

    /// The most total cost kept; 0 means no limit and a negative value becomes 0.
    /// Lowering it evicts least recent entries.
    public var totalCostLimit: Int {
        get { state.withLock { $0.costLimit } }
        set {
            let evicted = state.withLock { s -> [Value] in
                s.costLimit = max(0, newValue)
                return s.enforceLimits()
            }
            _ = evicted  // released here, outside the lock
        }
    }

    /// The most entries kept; 0 means no limit and a negative value becomes 0. Lowering
    /// it evicts least recent entries.
    public var countLimit: Int {
        get { state.withLock { $0.countLimit } }
        set {
            let evicted = state.withLock { s -> [Value] in
                s.countLimit = max(0, newValue)
                return s.enforceLimits()
            }
            _ = evicted
        }
    }

    /// The sum of the costs of the entries held now.
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// The number of entries held now.
    public var count: Int { state.withLock { $0.slots.count } }

    /// The value for `key`, which becomes the most recently used entry; `nil` on a miss.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let key = HashedKey(key)
        return state.withLock { $0.value(forKey: key) }
    }

    /// Whether `key` has an entry, without changing its recency.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        let key = HashedKey(key)
        return state.withLock { $0.index[key] != nil }
    }

    /// Stores `value` as the most recent entry, replacing any value for `key`, then evicts
    /// least recent entries until both limits hold.
    ///
    /// An entry whose `cost` alone exceeds ``entryCostLimit`` (by default ``totalCostLimit``)
    /// is not kept (and any old value for `key` is removed), so one huge image cannot flush
    /// the whole cache.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) {
        let key = HashedKey(key)
        let evicted = state.withLock { $0.set(value, forKey: key, cost: max(0, cost)) }
        _ = evicted
    }

    /// Removes the entry for `key` and returns its value.
    @discardableResult
    @inlinable
    public func removeValue(forKey key: Key) -> Value? {
        let key = HashedKey(key)
        return state.withLock { s -> Value? in
            guard let slot = s.index[key] else { return nil }
            return s.remove(slot: slot)
        }
    }

    /// Removes every entry.
    public func removeAll() {
        let old = state.withLock { s -> LRUState<Key, Value> in
            let old = s
            s = LRUState(costLimit: s.costLimit, countLimit: s.countLimit, entryCostLimit: s.entryCostLimit)
            return old
        }
        _ = old
    }

    /// Evicts least recent entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        let evicted = state.withLock { $0.evict(toCost: max(0, cost), toCount: .max) }
        _ = evicted
    }

    /// Evicts least recent entries until at most `count` remain.
    public func trim(toCount count: Int) {
        let evicted = state.withLock { $0.evict(toCost: .max, toCount: max(0, count)) }
        _ = evicted
    }

    /// The keys from most to least recently used (a snapshot, O(n)).
    public var keysByRecency: [Key] {
        state.withLock { s in
            var keys: [Key] = []
            keys.reserveCapacity(s.slots.count)
            var i = s.head
            while i >= 0 {
                keys.append(s.slots[i].key.key)
                i = s.slots[i].next
            }
            return keys
        }
    }
}

/// The lock-protected storage of ``MemoryCache``: dense slots linked by recency.
///
/// Removal moves the last slot into the freed one, so the array never has holes and
/// needs no free list; only the moved entry's dictionary index changes.
@usableFromInline
struct LRUState<Key: Hashable, Value> {
    @usableFromInline
    struct Slot {
        @usableFromInline var key: HashedKey<Key>
        @usableFromInline var value: Value
        @usableFromInline var cost: Int
        @usableFromInline var prev: Int
        @usableFromInline var next: Int

        @inlinable
        init(key: HashedKey<Key>, value: Value, cost: Int, prev: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.prev = prev
            self.next = next
        }
    }

    @usableFromInline var slots: [Slot] = []
    @usableFromInline var index: [HashedKey<Key>: Int] = [:]
    /// Most recent slot, or -1.
    @usableFromInline var head = -1
    /// Least recent slot, or -1.
    @usableFromInline var tail = -1
    @usableFromInline var totalCost = 0
    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    @usableFromInline var entryCostLimit: Int

    @inlinable
    init(costLimit: Int, countLimit: Int, entryCostLimit: Int = 0) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.entryCostLimit = entryCostLimit
    }

    @inlinable
    mutating func value(forKey key: HashedKey<Key>) -> Value? {
        guard let i = index[key] else { return nil }
        if i != head { moveToFront(i) }
        return slots[i].value
    }

    /// Returns what the caller releases after unlocking: the replaced value, if any,
    /// and the evicted ones. Neither allocates when nothing is evicted, which is the
    /// common case; an array for the replaced value cost two allocations per set.
    @inlinable
    mutating func set(_ value: Value, forKey key: HashedKey<Key>, cost: Int) -> (replaced: Value?, evicted: [Value]) {
        let entryLimit = entryCostLimit > 0 ? (costLimit > 0 ? min(entryCostLimit, costLimit) : entryCostLimit) : costLimit
        if entryLimit > 0 && cost > entryLimit {
            guard let i = index[key] else { return (nil, []) }
            return (remove(slot: i), [])
        }
        if let i = index[key] {
            totalCost += cost - slots[i].cost
            let old = slots[i].value
            slots[i].value = value
            slots[i].cost = cost
            if i != head { moveToFront(i) }
            return (old, enforceLimits())
        }
        let i = slots.count
        slots.append(Slot(key: key, value: value, cost: cost, prev: -1, next: head))
        if head >= 0 { slots[head].prev = i } else { tail = i }
        head = i
        index[key] = i
        totalCost += cost
        return (nil, enforceLimits())
    }

    @inlinable
    mutating func enforceLimits() -> [Value] {
        evict(toCost: costLimit > 0 ? costLimit : .max, toCount: countLimit > 0 ? countLimit : .max)
    }

    @inlinable
    mutating func evict(toCost cost: Int, toCount count: Int) -> [Value] {
        var evicted: [Value] = []
        while tail >= 0 && (totalCost > cost || slots.count > count) {
            evicted.append(remove(slot: tail))
        }
        return evicted
    }

    /// Every hit runs this, so it works on the slots' storage directly: one uniqueness
    /// check instead of one per link written through the array subscript.
    @inlinable
    mutating func moveToFront(_ i: Int) {
        var (head, tail) = (self.head, self.tail)
        slots.withUnsafeMutableBufferPointer { s in
            let p = s[i].prev, n = s[i].next
            if p >= 0 { s[p].next = n } else { head = n }
            if n >= 0 { s[n].prev = p } else { tail = p }
            s[i].prev = -1
            s[i].next = head
            if head >= 0 { s[head].prev = i } else { tail = i }
        }
        (self.head, self.tail) = (i, tail)
    }

    @inlinable
    mutating func unlink(_ i: Int) {
        let p = slots[i].prev, n = slots[i].next
        if p >= 0 { slots[p].next = n } else { head = n }
        if n >= 0 { slots[n].prev = p } else { tail = p }
    }

    @inlinable
    mutating func remove(slot i: Int) -> Value {
        unlink(i)
        totalCost -= slots[i].cost
        index[slots[i].key] = nil
        let last = slots.count - 1
        if i != last {
            // Move the last slot into the hole and repoint its neighbours and its index.
            slots.swapAt(i, last)
            let p = slots[i].prev, n = slots[i].next
            if p >= 0 { slots[p].next = i } else { head = i }
            if n >= 0 { slots[n].prev = i } else { tail = i }
            index[slots[i].key] = i
        }
        return slots.removeLast().value
    }
}

/// A key with its hash worked out once, before the cache's lock is taken: hashing a URL
/// string is most of a lookup's work, and under the lock it made every other thread wait
/// for it. The dictionary still hashes, but only this one integer; an eviction or a moved
/// slot re-indexes without hashing the string again.
@usableFromInline
struct HashedKey<Key: Hashable>: Hashable {
    @usableFromInline let key: Key
    @usableFromInline let hash: Int

    @inlinable
    init(_ key: Key) {
        self.key = key
        hash = key.hashValue
    }

    @inlinable
    static func == (a: HashedKey, b: HashedKey) -> Bool {
        a.hash == b.hash && a.key == b.key
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}

extension HashedKey: Sendable where Key: Sendable {}
