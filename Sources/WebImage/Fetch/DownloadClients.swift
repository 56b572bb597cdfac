import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization

/// The downloader's HTTP clients, created on first use: one verifying certificates and,
/// only for ``WebImageOptions/allowInvalidSSLCertificates``, one that does not; plus,
/// under an ``AddressPolicy``, clients pinned to a checked address.
///
/// A pinned client maps one host name to the address the policy checked
/// (AsyncHTTPClient's `dnsOverride`): it connects there without resolving again, while
/// the `Host` header, TLS server name (SNI) and certificate verification stay those of
/// the name. Pinned clients are leased per request and kept for reuse, at most
/// ``maxPinnedClients``; idle ones beyond that are shut down, least recently used first.
final class DownloadClients: Sendable {
    /// Pinned clients kept for reuse (idle ones beyond this are closed).
    static let maxPinnedClients = 32

    private struct Pinned {
        var client: HTTPClient
        var leases = 0
        var lastUsed: UInt64 = 0
    }
    private struct State {
        var secure: HTTPClient?
        var insecure: HTTPClient?
        var pinned: [String: Pinned] = [:]
        var clock: UInt64 = 0
        var isShutDown = false
    }
    private let state = Mutex(State())
    private let config: DownloaderConfig

    init(config: DownloaderConfig) {
        self.config = config
    }

    /// The client for a request; fails with ``WebImageCodecs/WebImageError/Code/invalidDownloadOperation``
    /// after ``shutdown()``.
    func client(insecure: Bool) throws(WebImageError) -> HTTPClient {
        let client = state.withLock { s -> HTTPClient? in
            guard !s.isShutDown else { return nil }
            if insecure {
                if s.insecure == nil { s.insecure = makeClient(insecure: true) }
                return s.insecure
            }
            if s.secure == nil { s.secure = makeClient(insecure: false) }
            return s.secure
        }
        guard let client else { throw WebImageError(.invalidDownloadOperation, "The downloader was shut down") }
        return client
    }

    /// A client that connects to `address` for `host`; give it back with
    /// ``release(pinnedKey:)`` once the response body is read.
    func pinnedClient(
        insecure: Bool, host: String, address: IPAddress
    ) throws(WebImageError) -> (client: HTTPClient, key: String) {
        let key = "\(insecure ? "insecure" : "secure") \(host) \(address)"
        let (client, evicted) = state.withLock { s -> (HTTPClient?, [HTTPClient]) in
            guard !s.isShutDown else { return (nil, []) }
            s.clock += 1
            if s.pinned[key] == nil {
                s.pinned[key] = Pinned(client: makeClient(insecure: insecure, dnsOverride: [host: address.description]))
            }
            s.pinned[key]?.leases += 1
            s.pinned[key]?.lastUsed = s.clock
            return (s.pinned[key]?.client, Self.evictIdle(&s))
        }
        for old in evicted { old.shutdown { _ in } }
        guard let client else { throw WebImageError(.invalidDownloadOperation, "The downloader was shut down") }
        return (client, key)
    }

    /// Pinned clients kept now (leased or idle).
    var pinnedCount: Int { state.withLock { $0.pinned.count } }

    /// Ends one lease of a pinned client.
    func release(pinnedKey key: String) {
        let evicted = state.withLock { s -> [HTTPClient] in
            s.pinned[key]?.leases -= 1
            return Self.evictIdle(&s)
        }
        for old in evicted { old.shutdown { _ in } }
    }

    /// Removes idle pinned clients beyond the limit, oldest first; returns them to close.
    private static func evictIdle(_ s: inout State) -> [HTTPClient] {
        guard s.pinned.count > maxPinnedClients else { return [] }
        let idle = s.pinned.filter { $0.value.leases <= 0 }.sorted { $0.value.lastUsed < $1.value.lastUsed }
        var evicted: [HTTPClient] = []
        for (key, entry) in idle.prefix(s.pinned.count - maxPinnedClients) {
            s.pinned[key] = nil
            evicted.append(entry.client)
        }
        return evicted
    }

    /// Shuts the clients down; later requests fail.
    func shutdown() async {
        for client in takeAll() { try? await client.shutdown() }
    }

    /// Starts shutting the clients down without waiting: the safety net for a
    /// downloader released without ``shutdown()``.
    func shutdownDetached() {
        for client in takeAll() { client.shutdown { _ in } }
    }

    private func takeAll() -> [HTTPClient] {
        state.withLock { s -> [HTTPClient] in
            s.isShutDown = true
            defer { (s.secure, s.insecure, s.pinned) = (nil, nil, [:]) }
            return [s.secure, s.insecure].compactMap { $0 } + s.pinned.values.map(\.client)
        }
    }

    /// `seconds` in nanoseconds, for NIO's `TimeAmount`; never traps.
    ///
    /// The config already keeps its timeout in ``DownloaderConfig/timeoutRange``; this
    /// clamps again so the `Int64` conversion is safe for any number of seconds: NaN, zero
    /// and negative values give the default 15 s, `.infinity` and anything over a day
    /// give one day (86400 s), far inside `Int64`'s 292 years of nanoseconds.
    static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((DownloaderConfig.clampedTimeout(seconds) * 1_000_000_000).rounded())
    }

    private func makeClient(insecure: Bool, dnsOverride: [String: String] = [:]) -> HTTPClient {
        var configuration = insecure
            ? HTTPClient.Configuration(certificateVerification: .none)
            : HTTPClient.Configuration()
        // The downloader follows redirects itself, so it can check each hop's scheme and
        // address, drop credentials across hosts and keep one deadline and size limit.
        configuration.redirectConfiguration = .disallow
        configuration.dnsOverride = dnsOverride
        // No read timeout: each transfer's deadline (the same length, counted from before
        // the request is sent) always comes first, and AsyncHTTPClient re-arms a read
        // timeout's timer on every read, ~2 % of a small transfer's CPU.
        let timeout = TimeAmount.nanoseconds(Self.nanoseconds(config.downloadTimeout))
        configuration.timeout = .init(connect: timeout, read: nil)
        // A refused connection should fail now, not after retrying until the timeout:
        // the downloader's RetryPolicy decides about retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = config.effectiveConnectionsPerHost
        // HTTP/2 when the server offers it over TLS (ALPN), HTTP/1.1 otherwise.
        configuration.httpVersion = .automatic
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

// MARK: - ClientLease

/// The HTTP client one hop of a transfer uses, and the pinned-client lease to end when
/// the hop's response is read.
struct ClientLease: Sendable {
    let client: HTTPClient
    private let clients: DownloadClients?
    private let pinnedKey: String?

    init(client: HTTPClient, pinnedKey: String? = nil, clients: DownloadClients? = nil) {
        self.client = client
        self.pinnedKey = pinnedKey
        self.clients = clients
    }

    /// Ends the lease (nothing for a shared client).
    func release() {
        if let pinnedKey { clients?.release(pinnedKey: pinnedKey) }
    }
}

/// A hop whose ``HopPolicy`` check passed on the caller's task
/// (``ImageDownloader/checkFirstHop(_:)``): the address to connect to, `nil` to connect as usual.
struct CheckedHop: Sendable {
    let address: IPAddress?
}

extension ImageDownloader {
    /// The client for one hop to `url`, after the ``HopPolicy`` passed it: under an
    /// ``AddressPolicy``, a client pinned to the checked address. Runs on the calling task;
    /// only a host-name lookup suspends it (on the resolver's pool), and
    /// ``immediateClientLease(for:insecure:)`` answers every hop that needs none.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/sourceNotAllowed`` or
    ///   ``WebImageCodecs/WebImageError/Code/forbiddenAddress`` before any connection is opened.
    func clientLease(for url: URL, insecure: Bool) async throws(WebImageError) -> ClientLease {
        if let now = immediateClientLease(for: url, insecure: insecure) { return try now.get() }
        let checked: IPAddress?
        do throws(WebImageError) {
            checked = try await config.hopPolicy.check(url)
        } catch {
            throw Self.counted(error)
        }
        return try lease(for: url, checked: checked, insecure: insecure)
    }

    /// The ``HopPolicy`` check of a transfer's first hop, made on the calling task before
    /// the transfer exists, so the hop itself needs no task: a host name is resolved here
    /// (suspending the caller on the resolver's pool), a refusal is thrown here. `nil`
    /// without a policy. See ``loadImage(with:options:context:observer:)``.
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/sourceNotAllowed``,
    ///   ``WebImageCodecs/WebImageError/Code/forbiddenAddress``,
    ///   ``WebImageCodecs/WebImageError/Code/cannotFindHost``, or the lookup's cancellation.
    func checkFirstHop(_ url: URL) async throws(WebImageError) -> CheckedHop? {
        let policy = config.hopPolicy
        guard !policy.isEmpty else { return nil }
        do throws(WebImageError) {
            return CheckedHop(address: try await policy.check(url))
        } catch {
            throw Self.counted(error)
        }
    }

    /// The lease for a hop whose policy check needs no lookup (no policy, a source refused
    /// by name, a host allowed by name, an address literal, a name the resolver has an
    /// answer for at hand, a hop `checked` already), decided on the calling thread;
    /// `nil` when the host must be resolved first. Lets a transfer start its hop on the
    /// thread it is on instead of in a task of its own.
    func immediateClientLease(for url: URL, insecure: Bool, checked: CheckedHop? = nil) -> Result<ClientLease, WebImageError>? {
        if let checked {
            return Result { () throws(WebImageError) in try lease(for: url, checked: checked.address, insecure: insecure) }
        }
        let policy = config.hopPolicy
        guard !policy.isEmpty else {
            return Result { () throws(WebImageError) in ClientLease(client: try clients.client(insecure: insecure)) }
        }
        guard let decided = policy.checkWithoutLookup(url) else { return nil }
        return Result { () throws(WebImageError) in
            do throws(WebImageError) {
                return try lease(for: url, checked: try decided.get(), insecure: insecure)
            } catch {
                throw Self.counted(error)
            }
        }
    }

    /// A refusal, counted in the metrics.
    private static func counted(_ error: WebImageError) -> WebImageError {
        if error.code == .forbiddenAddress { WebImageMetrics.forbiddenAddresses.increment() }
        if error.code == .sourceNotAllowed { WebImageMetrics.refusedSources.increment() }
        return error
    }

    /// The shared client, or one pinned to the `checked` address.
    private func lease(for url: URL, checked: IPAddress?, insecure: Bool) throws(WebImageError) -> ClientLease {
        guard let address = checked, let host = url.host else {
            return ClientLease(client: try clients.client(insecure: insecure))
        }
        let pinned = try clients.pinnedClient(insecure: insecure, host: host, address: address)
        return ClientLease(client: pinned.client, pinnedKey: pinned.key, clients: clients)
    }
}

// MARK: - BodyLease

/// A fetch caller's hold on a finished transfer's body while it decodes the body itself
/// (stage B, ``ImageStage``), given to ``ImageDownloader`` in ``ImageLoadObserver/bodyLease``:
/// until it is released, a request for the same body joins that transfer and gets the body
/// at once, as while the downloader's own decodes run. So a decode that takes long never
/// causes a second request for the same URL.
///
/// ``release()`` may come before the downloader attached its end of the hold (a fetch that
/// failed or was cancelled attaches none); either order ends the hold once.
package final class BodyLease: Sendable {
    private let state = Mutex<(released: Bool, onRelease: (@Sendable () -> Void)?)>((false, nil))

    package init() {}

    /// Ends the hold; calling it again does nothing. Runs on the calling thread, briefly.
    package func release() {
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            defer { s = (true, nil) }
            return s.released ? nil : s.onRelease
        }
        action?()
    }

    /// The downloader's end of the hold: `action` runs at the release (now, if it came first).
    func attach(_ action: @escaping @Sendable () -> Void) {
        let releasedAlready = state.withLock { s -> Bool in
            if !s.released { s.onRelease = action }
            return s.released
        }
        if releasedAlready { action() }
    }
}
