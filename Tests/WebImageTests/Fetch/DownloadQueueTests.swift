import Testing
@testable import WebImage

/// `DownloadQueue` (the scheduler's heap of waiting transfers) against a model written
/// here: a plain list, searched whole for the transfer to start next.
@Suite("DownloadQueue")
struct DownloadQueueTests {
    /// The model: every queued transfer with its priority and the order it was queued in.
    private struct Model {
        var entries: [(id: UInt64, priority: ImageLoadPriority, sequence: Int)] = []
        var sequence = 0
        let order: DownloaderConfig.ExecutionOrder

        mutating func insert(_ id: UInt64, _ priority: ImageLoadPriority) {
            sequence += 1
            entries.append((id, priority, sequence))
        }

        mutating func setPriority(_ id: UInt64, _ priority: ImageLoadPriority) {
            if let i = entries.firstIndex(where: { $0.id == id }) { entries[i].priority = priority }
        }

        mutating func remove(_ id: UInt64) { entries.removeAll { $0.id == id } }

        mutating func popNext() -> UInt64? {
            guard let best = entries.indices.min(by: { a, b in
                let x = entries[a], y = entries[b]
                if x.priority != y.priority { return x.priority > y.priority }
                return order == .fifo ? x.sequence < y.sequence : x.sequence > y.sequence
            }) else { return nil }
            return entries.remove(at: best).id
        }
    }

    /// A small deterministic generator (xorshift), so a failure repeats.
    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    @Test("highest priority first; among equals the oldest (FIFO) or the newest (LIFO)")
    func order() {
        for order in [DownloaderConfig.ExecutionOrder.fifo, .lifo] {
            var queue = DownloadQueue(order: order)
            queue.insert(1, priority: .normal)
            queue.insert(2, priority: .low)
            queue.insert(3, priority: .normal)
            queue.insert(4, priority: .veryHigh)
            queue.insert(5, priority: .normal)
            var started: [UInt64] = []
            while let id = queue.popNext() { started.append(id) }
            #expect(started == (order == .fifo ? [4, 1, 3, 5, 2] : [4, 5, 3, 1, 2]), "\(order)")
            #expect(queue.count == 0)
        }
    }

    @Test("a new priority moves a transfer, keeping its place among equals; a removed one never starts")
    func priorityAndRemoval() {
        var queue = DownloadQueue(order: .fifo)
        for id in UInt64(1)...5 { queue.insert(id, priority: .normal) }
        queue.setPriority(4, to: .high)
        queue.setPriority(2, to: .low)
        queue.setPriority(2, to: .normal)   // back among the normals, at its old place
        queue.remove(3)
        queue.remove(42)                    // not queued: nothing happens
        #expect(queue.count == 4)
        var started: [UInt64] = []
        while let id = queue.popNext() { started.append(id) }
        #expect(started == [4, 1, 2, 5])
    }

    @Test("random inserts, priority changes, removals and starts agree with the model")
    func agreesWithModel() {
        for order in [DownloaderConfig.ExecutionOrder.fifo, .lifo] {
            var queue = DownloadQueue(order: order)
            var model = Model(order: order)
            var random = Generator(state: 0x9E37_79B9_7F4A_7C15)
            var nextID: UInt64 = 0
            var queued: [UInt64] = []
            for step in 0..<20_000 {
                let priority = ImageLoadPriority.allCases.randomElement(using: &random) ?? .normal
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    nextID += 1
                    queue.insert(nextID, priority: priority)
                    model.insert(nextID, priority)
                    queued.append(nextID)
                case 4..<7:
                    if let id = queued.randomElement(using: &random) {
                        queue.setPriority(id, to: priority)
                        model.setPriority(id, priority)
                    }
                case 7:
                    if let i = queued.indices.randomElement(using: &random) {
                        queue.remove(queued[i])
                        model.remove(queued[i])
                        queued.remove(at: i)
                    }
                default:
                    let started = queue.popNext()
                    #expect(started == model.popNext(), "step \(step), \(order)")
                    queued.removeAll { $0 == started }
                }
                #expect(queue.count == model.entries.count)
            }
            while let id = model.popNext() { #expect(queue.popNext() == id) }
            #expect(queue.popNext() == nil)
        }
    }

    @Test("a flood of priority changes keeps the heap within twice the queued transfers, starts included")
    func staleEntriesAreBounded() {
        var queue = DownloadQueue(order: .fifo)
        for id in UInt64(1)...1_000 { queue.insert(id, priority: .normal) }
        for round in 0..<200 {
            for id in UInt64(1)...1_000 { queue.setPriority(id, to: round.isMultiple(of: 2) ? .high : .low) }
            #expect(queue.storedCount <= 2 * queue.count + 17)
        }
        // Stale entries left below the live ones: starting the live ones must not leave
        // the stale ones behind in a heap far larger than what is queued.
        for id in UInt64(1)...1_000 { queue.setPriority(id, to: .veryHigh) }
        for _ in 0..<990 {
            #expect(queue.popNext() != nil)
            #expect(queue.storedCount <= 2 * queue.count + 17)
        }
        #expect(queue.count == 10)
        var started: [UInt64] = []
        while let id = queue.popNext() { started.append(id) }
        #expect(started == Array(991...1_000))
        #expect(queue.storedCount == 0)
    }

    @Test("removals keep the heap within twice the queued transfers")
    func removalsAreBounded() {
        var queue = DownloadQueue(order: .lifo)
        for id in UInt64(1)...1_000 { queue.insert(id, priority: .normal) }
        for id in UInt64(1)...990 {
            queue.remove(id)
            #expect(queue.storedCount <= 2 * queue.count + 17)
        }
        var started: [UInt64] = []
        while let id = queue.popNext() { started.append(id) }
        #expect(started == Array((991...1_000).reversed()))
    }
}
