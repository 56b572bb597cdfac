import Foundation
import Synchronization
import Testing
import WebImage
import WebImageTestOrigin
@testable import webimage

/// What a bulk sample starts of its own (#48, item 7): with the dataset job's downloader
/// (its `CachingHostResolver` over a resolver that maps the made-up `origin.test` to the
/// origin's address) and its sample fetcher, a sample at a host name has its address
/// checked on its own task, or from the cache, never in a policy-check task.
@Suite("A bulk sample to a host name starts no task of its own", .timeLimit(.minutes(1)))
struct SampleTasksTests {
    /// Resolves `origin.test` to 127.0.0.1, counting lookups.
    final class OriginResolver: HostResolving {
        private let count = Mutex(0)
        var lookups: Int { count.withLock { $0 } }

        func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
            count.withLock { $0 += 1 }
            guard host == "origin.test", let address = IPAddress("127.0.0.1") else {
                throw WebImageError(.cannotFindHost, "\(host) is not resolved in this test")
            }
            return [address]
        }
    }

    static func plan(blockPrivateAddresses: Bool) -> DatasetPlan {
        var plan = DatasetPlan(file: "urls.txt", out: "out", format: .txt, formatName: "txt",
                               columns: InputColumns(), layout: .files)
        plan.blockPrivateAddresses = blockPrivateAddresses
        return plan
    }

    /// Runs `body` with the job's downloader and sample fetcher for `plan`, shutting the
    /// downloader down after, also when `body` throws.
    static func withFetcher(
        _ plan: DatasetPlan, _ resolver: OriginResolver, _ body: (ImageDownloader, SampleFetcher) async throws -> Void
    ) async throws {
        let downloader = ImageDownloader(config: DatasetRunner.downloaderConfig(for: plan, resolver: resolver))
        do {
            try await body(downloader, DatasetRunner.sampleFetcher(for: plan, downloader: downloader))
        } catch {
            await downloader.shutdown()
            throw error
        }
        await downloader.shutdown()
    }

    @Test("samples at a host name: looked up once on the first sample's task, then from the cache, a redirect too")
    func hostNameSamples() async throws {
        try await TestOrigin.with(host: "127.0.0.1") { origin in
            let bytes = Array("not decoded here".utf8)
            origin.route("/a.jpg", .init(body: bytes, contentType: "image/jpeg"))
            origin.route("/moved", .redirect(to: "http://origin.test:\(origin.port)/a.jpg?moved"))
            let resolver = OriginResolver()
            try await Self.withFetcher(Self.plan(blockPrivateAddresses: false), resolver) { downloader, fetcher in
                for path in ["/a.jpg", "/a.jpg?2", "/moved"] {
                    let body = try await fetcher.fetch("http://origin.test:\(origin.port)\(path)").get()
                    #expect(body.data == Data(bytes), "\(path)")
                }
                #expect(resolver.lookups == 1)
                #expect(downloader.policyCheckTasks == 0)
                #expect(origin.totalRequests == 4)
            }
        }
    }

    @Test("with --block-private-addresses, a sample at a name resolving to loopback fails on its own task, unfetched")
    func refusedName() async throws {
        try await TestOrigin.with(host: "127.0.0.1") { origin in
            origin.route("/a.jpg", .init(body: Array("x".utf8), contentType: "image/jpeg"))
            let resolver = OriginResolver()
            try await Self.withFetcher(Self.plan(blockPrivateAddresses: true), resolver) { downloader, fetcher in
                let result = await fetcher.fetch("http://origin.test:\(origin.port)/a.jpg")
                guard case .failure(.download(let message)) = result else {
                    Issue.record("a name resolving to loopback was fetched: \(result)")
                    return
                }
                #expect(message.contains("127.0.0.1"), "\(message)")
                #expect(resolver.lookups == 1)
                #expect(downloader.policyCheckTasks == 0)
                #expect(origin.connectionCount == 0)
            }
        }
    }
}
