import Testing
@testable import WebImage
@testable import WebImageCodecs

@Suite("MemoryCache: LRU order, limits, trims", .timeLimit(.minutes(1)))
struct MemoryCacheTests {
    @Test("a hit makes the entry most recent, so the count limit evicts the least recently used")
    func hitRefreshesRecency() {
        let cache = MemoryCache<String, Int>(countLimit: 3)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.value(forKey: "a") == 1)  // a is now most recent; b is least
        cache.setValue(4, forKey: "d")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.count == 3)
    }

    @Test("the cost limit evicts least recent entries until the total fits")
    func costLimit() {
        let cache = MemoryCache<String, String>(totalCostLimit: 100)
        cache.setValue("a", forKey: "a", cost: 40)
        cache.setValue("b", forKey: "b", cost: 40)
        _ = cache.value(forKey: "a")
        cache.setValue("c", forKey: "c", cost: 40)
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.totalCost == 80)
    }

    @Test("an entry costlier than the whole limit is not kept and drops the old value")
    func oversizedEntry() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 100)
        cache.setValue(1, forKey: "x", cost: 10)
        cache.setValue(2, forKey: "y", cost: 10)
        cache.setValue(3, forKey: "x", cost: 101)
        #expect(cache.value(forKey: "x") == nil)
        #expect(cache.value(forKey: "y") == 2)
        #expect(cache.totalCost == 10)
    }

    @Test("replacing a value updates cost and recency")
    func replace() {
        let cache = MemoryCache<Int, Int>()
        cache.setValue(1, forKey: 1, cost: 5)
        cache.setValue(2, forKey: 2, cost: 5)
        cache.setValue(10, forKey: 1, cost: 7)
        #expect(cache.value(forKey: 1) == 10)
        #expect(cache.totalCost == 12)
        #expect(cache.keysByRecency == [1, 2])
    }

    @Test("trims, lowering limits, remove and removeAll")
    func trims() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.setValue(i, forKey: i, cost: 10) }
        cache.trim(toCount: 8)
        #expect(cache.count == 8)
        #expect(!cache.contains(0) && !cache.contains(1))
        cache.trim(toCost: 50)
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.countLimit = 2
        #expect(cache.keysByRecency == [9, 8])
        #expect(cache.removeValue(forKey: 9) == 9)
        #expect(cache.keysByRecency == [8] && cache.totalCost == 10)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache.value(forKey: 8) == nil)
    }

    @Test("random operations agree with a simple reference LRU")
    func matchesReference() {
        let cache = MemoryCache<Int, Int>(totalCostLimit: 200, countLimit: 12)
        var reference: [(key: Int, value: Int, cost: Int)] = []  // most recent first
        var rng = SystemRandomNumberGenerator()
        for step in 0..<5000 {
            let key = Int.random(in: 0..<30, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4:
                let cost = Int.random(in: 0..<40, using: &rng)
                cache.setValue(step, forKey: key, cost: cost)
                reference.removeAll { $0.key == key }
                reference.insert((key, step, cost), at: 0)
                while reference.count > 12 || reference.reduce(0, { $0 + $1.cost }) > 200 { reference.removeLast() }
            case 4..<8:
                let expected = reference.firstIndex { $0.key == key }.map { reference.remove(at: $0) }
                if let expected { reference.insert(expected, at: 0) }
                #expect(cache.value(forKey: key) == expected?.value)
            default:
                reference.removeAll { $0.key == key }
                cache.removeValue(forKey: key)
            }
        }
        #expect(cache.keysByRecency == reference.map(\.key))
        #expect(cache.totalCost == reference.reduce(0) { $0 + $1.cost })
    }

    @Test("concurrent use from many tasks keeps the totals consistent")
    func concurrent() async {
        let cache = MemoryCache<Int, Int>(countLimit: 50)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        cache.setValue(i, forKey: (i * 7 + t) % 100, cost: 1)
                        _ = cache.value(forKey: i % 100)
                        if i % 13 == 0 { cache.removeValue(forKey: i % 100) }
                    }
                }
            }
        }
        #expect(cache.count <= 50)
        #expect(cache.totalCost == cache.count)
        #expect(cache.keysByRecency.count == cache.count)
    }

    /// Every value of this key hashes alike, so the cache's index must tell keys apart by
    /// equality (it works each key's hash out before taking its lock).
    private struct CollidingKey: Hashable, Sendable {
        let name: String
        func hash(into hasher: inout Hasher) { hasher.combine(0) }
    }

    @Test("keys whose hashes collide stay distinct: get, replace, evict and remove each their own")
    func collidingKeys() {
        let cache = MemoryCache<CollidingKey, Int>(countLimit: 3)
        let a = CollidingKey(name: "a"), b = CollidingKey(name: "b"), c = CollidingKey(name: "c")
        cache.setValue(1, forKey: a)
        cache.setValue(2, forKey: b)
        cache.setValue(3, forKey: c)
        #expect(cache.value(forKey: a) == 1)
        #expect(cache.value(forKey: b) == 2)
        cache.setValue(20, forKey: b)
        cache.setValue(4, forKey: CollidingKey(name: "d"))   // c is least recent now
        #expect(cache.value(forKey: c) == nil)
        #expect(cache.removeValue(forKey: a) == 1)
        #expect(!cache.contains(a))
        #expect(cache.value(forKey: b) == 20)
        #expect(cache.keysByRecency.map(\.name) == ["b", "d"])
    }
}
