import AsyncHTTPClient
import NIOCore
import Synchronization

/// The downloader's HTTP clients, created on first use: one verifying certificates and,
/// only for ``DownloaderOptions/allowInvalidSSLCertificates``, one that does not.
final class DownloadClients: Sendable {
    private struct State {
        var secure: HTTPClient?
        var insecure: HTTPClient?
        var isShutDown = false
    }
    private let state = Mutex(State())
    private let config: DownloaderConfig

    init(config: DownloaderConfig) {
        self.config = config
    }

    /// The client for a request; fails with ``WebImageError/Code/invalidDownloadOperation``
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

    /// Shuts the clients down; later requests fail.
    func shutdown() async {
        let clients = state.withLock { s -> [HTTPClient] in
            s.isShutDown = true
            defer { (s.secure, s.insecure) = (nil, nil) }
            return [s.secure, s.insecure].compactMap { $0 }
        }
        for client in clients { try? await client.shutdown() }
    }

    /// Starts shutting the clients down without waiting: the safety net for a
    /// downloader released without ``shutdown()``.
    func shutdownDetached() {
        let clients = state.withLock { s -> [HTTPClient] in
            s.isShutDown = true
            defer { (s.secure, s.insecure) = (nil, nil) }
            return [s.secure, s.insecure].compactMap { $0 }
        }
        for client in clients { client.shutdown { _ in } }
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

    private func makeClient(insecure: Bool) -> HTTPClient {
        var configuration = insecure
            ? HTTPClient.Configuration(certificateVerification: .none)
            : HTTPClient.Configuration()
        // The downloader follows redirects itself, so it can check each hop's scheme,
        // drop credentials across hosts and keep one deadline and size limit.
        configuration.redirectConfiguration = .disallow
        let timeout = TimeAmount.nanoseconds(Self.nanoseconds(config.downloadTimeout))
        configuration.timeout = .init(connect: timeout, read: timeout)
        // A refused connection should fail now, not after retrying until the timeout:
        // the manager decides about retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, config.maxConcurrentDownloads)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
