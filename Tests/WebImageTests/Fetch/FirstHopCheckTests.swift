import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
import WebImageTestOrigin

/// Where the hop policy's checks run (#48, item 7): an `async` caller checks its transfer's
/// first hop on its own task, so a host name starts no task; later hops are checked on the
/// thread they are on when the resolver has the answer at hand, else in a task. The names
/// are made up (`origin.test`) and resolved by a scripted resolver to the origin's address.
@Suite("ImageDownloader: the first hop is checked on the caller's task", .timeLimit(.minutes(1)))
struct FirstHopCheckTests {
    private static let loopback = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")].compactMap { $0 })

    private static func config(_ resolver: any HostResolving, refusing: Bool = false) -> DownloaderConfig {
        var policy = refusing ? AddressPolicy.blockPrivateAddresses : loopback
        policy.resolver = resolver
        return LoaderTestKit.config { $0.hopPolicy.addresses = policy }
    }

    private static func url(_ host: String, _ origin: TestOrigin, _ path: String) throws -> URL {
        try #require(URL(string: "http://\(host):\(origin.port)\(path)"))
    }

    @Test("a host name: the async form resolves it on the caller's task and starts no task; the callback form starts one")
    func asyncCallerStartsNoTask() async throws {
        let resolver = ScriptedResolver(["origin.test": [["127.0.0.1"]]])
        try await LoaderTestKit.withOrigin(Self.config(resolver)) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            let response = try await downloader.loadImage(with: try Self.url("origin.test", origin, "/a.raw"))
            #expect(response.image?.pixels == pixels)
            #expect(resolver.lookups(of: "origin.test") == 1)
            #expect(downloader.policyCheckTasks == 0)
            // An address literal needs no lookup either way.
            _ = try await downloader.loadImage(with: try Self.url("127.0.0.1", origin, "/a.raw?literal"))
            #expect(downloader.policyCheckTasks == 0)
            // The callback form's caller has no task to check on: its transfer starts one.
            let recorder = LoadRecorder()
            recorder.request(downloader, try Self.url("origin.test", origin, "/a.raw?callback"))
            #expect(try await recorder.final().get().image?.pixels == pixels)
            #expect(downloader.policyCheckTasks == 1)
            #expect(resolver.lookups(of: "origin.test") == 2)
            #expect(origin.requestCount("/a.raw") == 3)
        }
    }

    @Test("a redirect to a name the caching resolver remembers is checked without a task; a name it must look up starts one")
    func redirectHops() async throws {
        let scripted = ScriptedResolver(["origin.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]])
        let resolver = CachingHostResolver(scripted)
        try await LoaderTestKit.withOrigin(Self.config(resolver)) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            origin.route("/to-same", .redirect(to: try Self.url("origin.test", origin, "/a.raw?same").absoluteString))
            origin.route("/to-other", .redirect(to: try Self.url("other.test", origin, "/a.raw?other").absoluteString))
            // First hop on the caller's task (the lookup), the redirect from the cache.
            let same = try await downloader.loadImage(with: try Self.url("origin.test", origin, "/to-same"))
            #expect(same.image?.pixels == pixels)
            #expect(downloader.policyCheckTasks == 0)
            #expect(scripted.lookups(of: "origin.test") == 1)
            // A redirect to a name not looked up yet waits for its lookup in a task.
            let other = try await downloader.loadImage(with: try Self.url("origin.test", origin, "/to-other"))
            #expect(other.image?.pixels == pixels)
            #expect(downloader.policyCheckTasks == 1)
            #expect(scripted.lookups(of: "other.test") == 1)
            #expect(scripted.lookups(of: "origin.test") == 1)
            #expect(origin.requestCount("/a.raw") == 2)
        }
    }

    @Test("a refused first hop throws on the caller's task: no transfer, no task, no connection")
    func refusedOnCaller() async throws {
        let resolver = ScriptedResolver(["inside.test": [["127.0.0.1"]]])
        try await LoaderTestKit.withOrigin(Self.config(resolver, refusing: true)) { origin, downloader in
            origin.route("/a.raw", .init(body: LoaderTestKit.rawImage().data))
            let events = downloader.events()
            let url = try Self.url("inside.test", origin, "/a.raw")
            do throws(WebImageError) {
                _ = try await downloader.loadImage(with: url)
                Issue.record("a name resolving to loopback was fetched")
            } catch {
                #expect(error.code == .forbiddenAddress)
                #expect(downloader.shouldBlockFailedURL(url, error: error) == false)
            }
            #expect(resolver.lookups(of: "inside.test") == 1)
            #expect(downloader.policyCheckTasks == 0)
            #expect(downloader.currentDownloadCount == 0)
            #expect(origin.connectionCount == 0)
            // No transfer started: the event stream, ended by the shutdown, is empty.
            await downloader.shutdown()
            var seen: [DownloadEvent] = []
            for await event in events { seen.append(event) }
            #expect(seen.isEmpty, "\(seen)")
        }
    }

    @Test("a retry checks its first hop again: a rebinding answer for the retry is refused")
    func retryChecksAgain() async throws {
        let resolver = ScriptedResolver(["origin.test": [["127.0.0.1"], ["10.0.0.1"]]])
        var config = Self.config(resolver)
        config.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, maxDelay: 0.02, totalBudget: 5)
        try await LoaderTestKit.withOrigin(config) { origin, downloader in
            origin.route("/a.raw", failing: 1, then: .init(body: LoaderTestKit.rawImage().data))
            let url = try Self.url("origin.test", origin, "/a.raw")
            do throws(WebImageError) {
                _ = try await downloader.loadImage(with: url)
                Issue.record("the retry went to the first answer's address unchecked")
            } catch {
                #expect(error.code == .forbiddenAddress)
            }
            #expect(resolver.lookups(of: "origin.test") == 2)
            #expect(origin.requestCount("/a.raw") == 1)
            // The first attempt's hop was checked on the caller's task; the retry's, on an
            // event loop with a resolver that remembers nothing, in a task.
            #expect(downloader.policyCheckTasks == 1)
        }
    }

    @Test("callers joining a transfer already there do not check again: one lookup, one request")
    func joinersCheckNothing() async throws {
        let resolver = ScriptedResolver(["origin.test": [["127.0.0.1"]]])
        try await LoaderTestKit.withOrigin(Self.config(resolver)) { origin, downloader in
            let (bytes, pixels) = LoaderTestKit.rawImage()
            origin.route("/a.raw", .init(body: bytes))
            let url = try Self.url("origin.test", origin, "/a.raw")
            downloader.isSuspended = true
            let callers = { downloader.scheduler.withLock { $0.entries.values.first?.callers.count ?? 0 } }
            // The first caller checks and queues the transfer; then two more join it.
            var loads = [Task { try? await downloader.loadImage(with: url).image?.pixels }]
            while callers() < 1 { try await Task.sleep(for: .milliseconds(1)) }
            loads += (0..<2).map { _ in Task { try? await downloader.loadImage(with: url).image?.pixels } }
            while callers() < 3 { try await Task.sleep(for: .milliseconds(1)) }
            downloader.isSuspended = false
            for load in loads { #expect(await load.value == pixels) }
            #expect(resolver.lookups(of: "origin.test") == 1)
            #expect(origin.requestCount("/a.raw") == 1)
            #expect(downloader.policyCheckTasks == 0)
        }
    }

    @Test("a caller cancelled while its first hop's name resolves gets cancelled, and nothing connects",
          arguments: [true, false])
    func cancelledWhileResolving(resolverHearsCancellation: Bool) async throws {
        let resolver = ParkedResolver(hearsCancellation: resolverHearsCancellation)
        try await LoaderTestKit.withOrigin(Self.config(resolver)) { origin, downloader in
            origin.route("/a.raw", .init(body: LoaderTestKit.rawImage().data))
            let url = try Self.url("origin.test", origin, "/a.raw")
            let load = Task { () -> WebImageError? in
                do throws(WebImageError) {
                    _ = try await downloader.loadImage(with: url)
                    return nil
                } catch {
                    return error
                }
            }
            while resolver.parkedCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
            load.cancel()
            // A resolver deaf to cancellation answers (an allowed address) after the cancel.
            if !resolverHearsCancellation { resolver.release() }
            #expect(await load.value?.code == .cancelled)
            resolver.release()
            #expect(downloader.currentDownloadCount == 0)
            #expect(downloader.policyCheckTasks == 0)
            #expect(origin.connectionCount == 0)
        }
    }
}

/// A resolver whose lookups wait until ``release()``, answering 127.0.0.1; one that hears
/// cancellation ends a cancelled lookup at once, as ``SystemHostResolver`` does.
private final class ParkedResolver: HostResolving {
    typealias Answer = Result<[IPAddress], WebImageError>
    private struct State {
        var waiting: [@Sendable (Answer) -> Void] = []
        var started = 0
        var released = false
    }
    private let state = Mutex(State())
    private let hearsCancellation: Bool

    init(hearsCancellation: Bool) {
        self.hearsCancellation = hearsCancellation
    }

    /// Lookups that have started waiting.
    var parkedCount: Int { state.withLock { $0.started } }

    /// Answers every waiting lookup, and every later one at once.
    func release() {
        let waiting = state.withLock { s in
            s.released = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for answer in waiting { answer(Self.loopback) }
    }

    private static var loopback: Answer { .success([IPAddress("127.0.0.1")].compactMap { $0 }) }

    private func park(_ answer: @escaping @Sendable (Answer) -> Void) {
        let released = state.withLock { s in
            s.started += 1
            if !s.released { s.waiting.append(answer) }
            return s.released
        }
        if released { answer(Self.loopback) }
    }

    func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
        let result: Answer
        if hearsCancellation {
            result = await FirstOf.value(cancelled: { .failure(.cancelled()) }) { box in park { box.resume($0) } }
        } else {
            result = await withCheckedContinuation { continuation in park { continuation.resume(returning: $0) } }
        }
        return try result.get()
    }
}
