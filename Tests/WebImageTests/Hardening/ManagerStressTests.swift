import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat
import WebImageTestOrigin

/// Many loads at once through one manager: random URLs, options, thumbnail sizes and
/// cancellations from several tasks. Every load ends exactly once, and afterwards
/// nothing runs, nothing downloads and no operation is kept alive.
@Suite("Hardening: manager stress", .timeLimit(.minutes(3)))
struct ManagerStressTests {
    static let loadCount = 10_000
    static let urlCount = 500
    static let taskCount = 8

    /// What the callbacks of every load saw.
    final class Tally: Sendable {
        private struct Load {
            var finals = 0
            var afterFinal = 0
            var errors: [WebImageError.Code] = []
        }
        private let loads = Mutex([Load](repeating: Load(), count: ManagerStressTests.loadCount))

        func record(_ index: Int, _ result: ImageLoadResult) {
            loads.withLock { loads in
                if loads[index].finals > 0 { loads[index].afterFinal += 1 }
                if result.isFinished { loads[index].finals += 1 }
                if let error = result.error { loads[index].errors.append(error.code) }
            }
        }

        var finishedCount: Int { loads.withLock { $0.filter { $0.finals > 0 }.count } }
        var notExactlyOnce: [Int] { loads.withLock { loads in loads.indices.filter { loads[$0].finals != 1 } } }
        var callbacksAfterFinal: Int { loads.withLock { $0.reduce(0) { $0 + $1.afterFinal } } }
        var errorCodes: Set<WebImageError.Code> { loads.withLock { Set($0.flatMap(\.errors)) } }
    }

    /// Holds operations weakly, to see that none outlives its load.
    final class WeakOperations: Sendable {
        private struct Box: @unchecked Sendable {  // weak refs are read under the lock only
            weak var operation: CombinedOperation?
            var label: String
        }
        private let boxes = Mutex<[Box]>([])
        func add(_ operation: CombinedOperation, label: String) {
            boxes.withLock { $0.append(Box(operation: operation, label: label)) }
        }
        var alive: Int { boxes.withLock { $0.filter { $0.operation != nil }.count } }
        /// How many operations of each label are still alive.
        var aliveByLabel: [String: Int] {
            boxes.withLock { boxes in
                boxes.filter { $0.operation != nil }.reduce(into: [:]) { $0[$1.label, default: 0] += 1 }
            }
        }
    }

    /// SplitMix64: the same sequence on every run, so a failure can be replayed.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let optionMix: [WebImageOptions] = [
        [], [], [.lowPriority], [.highPriority], [.fromLoaderOnly], [.decodeFirstFrameOnly],
        [.queryMemoryData], [.waitStoreCache], [.cacheMemoryOnly], [.retryFailed],
    ]
    static let thumbnails: [PixelSize?] = [nil, nil, PixelSize(width: 8, height: 8), PixelSize(width: 5, height: 3)]

    @Test("10 000 loads over 500 URLs with cancellations: each ends once, nothing is left running")
    func stress() async throws {
        try await TestOrigin.with { origin in
            let dir = try TemporaryDirectory()
            let cache = ImageCache(namespace: "stress", directory: dir.url)
            var config = DownloaderConfig()
            config.downloadTimeout = 30
            let downloader = ImageDownloader(config: config)
            let manager = ImageManager(cache: cache, loader: downloader)
            for i in 0..<Self.urlCount {
                let body = ManagerTestKit.png(width: 12 + i % 5, height: 9 + i % 3, seed: UInt8(truncatingIfNeeded: i))
                origin.route("/\(i).png", .init(body: Array(body), contentType: "image/png"))
            }
            let tally = Tally()
            let operations = WeakOperations()
            let perTask = Self.loadCount / Self.taskCount

            await withTaskGroup(of: Void.self) { group in
                for task in 0..<Self.taskCount {
                    group.addTask {
                        var random = Random(state: UInt64(task) &* 7919 &+ 1)
                        for n in 0..<perTask {
                            let index = task * perTask + n
                            let url = origin.url("/\(Int.random(in: 0..<Self.urlCount, using: &random)).png")
                            var context = WebImageContext()
                            context.thumbnailPixelSize = Self.thumbnails.randomElement(using: &random) ?? nil
                            let options = Self.optionMix.randomElement(using: &random) ?? []
                            let operation = manager.loadImage(with: url, options: options, context: context) { result in
                                tally.record(index, result)
                            }
                            let cancelMode = Int.random(in: 0..<10, using: &random)
                            let thumb = context.thumbnailPixelSize.map { "\($0.width)x\($0.height)" } ?? "full"
                            operations.add(operation, label: "options \(options.rawValue), \(thumb), cancel \(min(cancelMode, 2))")
                            switch cancelMode {
                            case 0: operation.cancel()
                            case 1:
                                let delay = Int.random(in: 0..<20, using: &random)
                                Task {
                                    try? await Task.sleep(for: .milliseconds(delay))
                                    operation.cancel()
                                }
                            default: break
                            }
                            if n % 50 == 0 { await Task.yield() }
                        }
                    }
                }
            }

            let allEnded = await ManagerTestKit.eventually(90) { tally.finishedCount == Self.loadCount }
            #expect(allEnded, "\(Self.loadCount - tally.finishedCount) loads never ended")
            #expect(await ManagerTestKit.eventually(10) { !manager.isRunning })
            #expect(await ManagerTestKit.eventually(10) { downloader.currentDownloadCount == 0 })
            // A callback still queued would show up now.
            try await Task.sleep(for: .milliseconds(200))
            #expect(tally.notExactlyOnce.isEmpty, "loads without exactly one final callback: \(tally.notExactlyOnce.prefix(10))")
            #expect(tally.callbacksAfterFinal == 0)
            #expect(tally.errorCodes.isSubset(of: [.cancelled]), "\(tally.errorCodes)")
            let released = await ManagerTestKit.eventually(10) { operations.alive == 0 }
            #expect(released, "\(operations.alive) operations still alive: \(operations.aliveByLabel)")

            await downloader.shutdown()
        }
    }
}
