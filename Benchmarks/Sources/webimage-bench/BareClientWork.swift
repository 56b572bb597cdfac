import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// AsyncHTTPClient alone, with none of WebImage: the transport the downloader is built on,
/// configured as the downloader configures it (redirects off, one soft limit of
/// `concurrency` connections to the host), every URL requested at once through a
/// `HTTPClientResponseDelegate` that gathers the body, as `TransferDelegate` does. The
/// floor of the transfer row: what the downloader could reach without a transport of its own.
enum BareClientWork {
    static func transfer(paths: [String], concurrency: Int, iterations: Int, warmup: Int) throws -> BenchReport {
        let urls = try NetworkWork.urls(in: paths)
        let measured = try AsyncBridge.wait { () async throws -> (samples: [Double], cores: Double?, bytes: Int) in
            var bytes = 0
            let (samples, cores) = try await Sampler.samplesAndCores(iterations: iterations, warmup: warmup) { () async throws in
                var configuration = HTTPClient.Configuration()
                configuration.redirectConfiguration = .disallow
                configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                do {
                    bytes = try await withThrowingTaskGroup(of: Int.self) { group in
                        for url in urls {
                            let request = try HTTPClient.Request(url: url.absoluteString, method: .GET)
                            group.addTask {
                                try await client.execute(request: request, delegate: BodyGatherer()).futureResult.get()
                            }
                        }
                        return try await group.reduce(0, +)
                    }
                } catch {
                    try await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
            return (samples, cores, bytes)
        }
        return BenchReport(mode: BenchMode.bareClientData.rawValue, ok: measured.bytes > 0, samples: measured.samples,
                           opsPerSample: urls.count, pixelsPerSample: measured.bytes,
                           peakRSSBytes: ProcessMemory.peakResidentBytes(), coresBusy: measured.cores)
    }
}

/// Gathers a 200 response's body into one buffer; answers its size. AsyncHTTPClient calls
/// it on the request's event loop, one call at a time: the `Mutex` is there because a
/// delegate must be `Sendable`, as in `TransferDelegate`, and is never contended.
private final class BodyGatherer: HTTPClientResponseDelegate {
    typealias Response = Int
    private struct State {
        var body: ByteBuffer?
        var status: UInt = 0
    }
    private let state = Mutex(State())

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLock { $0.status = head.status.code }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ part: ByteBuffer) -> EventLoopFuture<Void> {
        state.withLock { state in
            var part = part
            if state.body == nil { state.body = part } else { state.body?.writeBuffer(&part) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        let (status, count) = state.withLock { ($0.status, $0.body?.readableBytes ?? 0) }
        guard status == 200, count > 0 else { throw UsageError("status \(status), \(count) bytes") }
        return count
    }
}
