import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves names with the system's `getaddrinfo` (hosts file, DNS), which blocks: each
/// lookup runs on a pool of its own (``sharedPool`` unless another is given), never on
/// the disk pool, the cooperative pool or an event loop.
///
/// A lookup that takes longer than ``timeout`` fails with
/// ``WebImageCodecs/WebImageError/Code/cannotFindHost``; `getaddrinfo` cannot be interrupted, so its
/// thread stays busy until the system gives up, but the caller goes on, and at most the
/// pool's threads are ever tied up this way.
public struct SystemHostResolver: HostResolving {
    /// The resolver's default pool: 8 threads, a line of 1,024 lookups. Separate from
    /// ``BlockingIOPool/shared`` so slow DNS answers for hosts a client picked never
    /// stall disk reads.
    public static let sharedPool = BlockingIOPool(threadCount: 8, maxPending: 1024)

    /// Where lookups run.
    public let pool: BlockingIOPool
    /// Seconds a caller waits for one lookup. Default 5.
    public let timeout: Duration

    /// A resolver on `pool` whose callers wait at most `timeout`.
    public init(pool: BlockingIOPool = SystemHostResolver.sharedPool, timeout: Duration = .seconds(5)) {
        self.pool = pool
        self.timeout = timeout
    }

    public func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
        // The lookup, the deadline and a cancellation race to answer the caller once; the
        // loser's answer is dropped. The lookup is not awaited past that: a stuck
        // getaddrinfo keeps its pool thread, never its caller.
        let timeout = self.timeout
        let result = await FirstOf<Result<[IPAddress], WebImageError>>.value(
            deadline: .now + timeout,
            timedOut: { .failure(WebImageError(.cannotFindHost, "Looking up \(host) took longer than \(timeout)")) },
            cancelled: { .failure(WebImageError.cancelled("The lookup of \(host) was cancelled")) }
        ) { box in
            let queued = pool.submit { box.resume(Self.lookup(host, port: port)) }
            if !queued {
                box.resume(.failure(WebImageError(.cannotFindHost, "Too many lookups are waiting; \(host) was not looked up")))
            }
        }
        switch result {
        case .success(let addresses) where !addresses.isEmpty: return addresses
        case .success: throw WebImageError(.cannotFindHost, "The host \(host) has no address")
        case .failure(let error): throw error
        }
    }

    /// One blocking `getaddrinfo` call; addresses in its order, duplicates removed.
    static func lookup(_ host: String, port: Int) -> Result<[IPAddress], WebImageError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(WebImageError(.cannotFindHost, "The host \(host) was not found: \(reason)"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let sockaddr = current.pointee.ai_addr, let address = Self.address(of: sockaddr, family: current.pointee.ai_family),
               !addresses.contains(address) {
                addresses.append(address)
            }
            node = current.pointee.ai_next
        }
        return .success(addresses)
    }

    private static func address(of sockaddr: UnsafeMutablePointer<sockaddr>, family: Int32) -> IPAddress? {
        switch family {
        case AF_INET:
            return sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                var a = p.pointee.sin_addr
                return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
            }
        case AF_INET6:
            return sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                var a = p.pointee.sin6_addr
                return IPAddress(bytes: withUnsafeBytes(of: &a) { Array($0) })
            }
        default:
            return nil
        }
    }
}
