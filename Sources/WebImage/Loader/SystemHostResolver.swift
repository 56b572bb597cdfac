#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves names with the system's `getaddrinfo` (hosts file, DNS), which blocks: each
/// lookup runs on ``BlockingIOPool/shared``, never on the cooperative pool or an event loop.
public struct SystemHostResolver: HostResolving {
    /// Creates the resolver.
    public init() {}

    public func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
        let result = try await BlockingIOPool.shared.run { Self.lookup(host, port: port) }
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
