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

extension ImageDownloader {
    /// The client for one hop to `url`, after the ``HopPolicy`` passed it: under an
    /// ``AddressPolicy``, a client pinned to the checked address. Runs in the transfer's
    /// policy-check task (the lookup may wait on the resolver pool).
    ///
    /// - Throws: ``WebImageCodecs/WebImageError/Code/sourceNotAllowed`` or
    ///   ``WebImageCodecs/WebImageError/Code/forbiddenAddress`` before any connection is opened.
    func clientLease(for url: URL, insecure: Bool) async throws(WebImageError) -> ClientLease {
        let policy = config.hopPolicy
        guard !policy.isEmpty else {
            return ClientLease(client: try clients.client(insecure: insecure))
        }
        let checked: IPAddress?
        do {
            checked = try await policy.check(url)
        } catch {
            if error.code == .forbiddenAddress { WebImageMetrics.forbiddenAddresses.increment() }
            if error.code == .sourceNotAllowed { WebImageMetrics.refusedSources.increment() }
            throw error
        }
        guard let address = checked, let host = url.host else {
            return ClientLease(client: try clients.client(insecure: insecure))
        }
        let pinned = try clients.pinnedClient(insecure: insecure, host: host, address: address)
        return ClientLease(client: pinned.client, pinnedKey: pinned.key, clients: clients)
    }
}
