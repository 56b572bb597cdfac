import AsyncHTTPClient
import Foundation

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
