import Synchronization

/// A ``HostResolving`` that remembers answers for a while, so a job that fetches a million
/// URLs from a thousand hosts makes about a thousand lookups, not a million.
///
/// Answers are kept for ``ttl`` (`getaddrinfo` does not say the record's own TTL), failures
/// for ``negativeTTL``; concurrent lookups of one name share one call to the wrapped
/// resolver. At most ``capacity`` names are remembered: when full, the entry that expires
/// first is dropped. Lookups run wherever the wrapped resolver runs them (the system
/// resolver's own pool); the cache itself is a `Mutex`, and no resolver call happens under it.
///
/// Use it as the ``AddressPolicy/resolver`` of a downloader's hop policy: the downloader
/// then connects to the address it looked up, so the cache decides how often DNS is asked.
public final class CachingHostResolver: HostResolving {
    private enum Entry {
        case answer(Result<[IPAddress], WebImageError>, expires: ContinuousClock.Instant)
        case pending(Task<Result<[IPAddress], WebImageError>, Never>)
    }

    /// The wrapped resolver.
    public let base: any HostResolving
    /// How long an answer is used. Default 5 minutes.
    public let ttl: Duration
    /// How long a failed lookup is remembered. Default 30 seconds.
    public let negativeTTL: Duration
    /// How many answers are remembered at most (at least 1). Default 100,000. Lookups in
    /// progress come on top, as many as callers wait for different names at once.
    public let capacity: Int

    private let entries = Mutex<[String: Entry]>([:])
    private let lookups = Atomic<Int>(0)

    /// Wraps `base`; `capacity` is raised to at least 1.
    public init(
        _ base: any HostResolving = SystemHostResolver(), ttl: Duration = .seconds(300),
        negativeTTL: Duration = .seconds(30), capacity: Int = 100_000
    ) {
        self.base = base
        self.ttl = ttl
        self.negativeTTL = negativeTTL
        self.capacity = max(1, capacity)
    }

    /// How many lookups reached the wrapped resolver so far.
    public var lookupCount: Int { lookups.load(ordering: .relaxed) }

    public func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
        let key = host.lowercased() + "|" + String(port)
        let now = ContinuousClock.now
        let found = entries.withLock { entries -> Entry in
            switch entries[key] {
            case .answer(let result, let expires) where expires > now:
                return .answer(result, expires: expires)
            case .pending(let task):
                return .pending(task)
            default:
                break
            }
            if entries.count >= capacity { Self.evict(&entries, now: now) }
            let task = Task { await self.lookUp(host, port: port) }
            entries[key] = .pending(task)
            return .pending(task)
        }
        guard case .pending(let task) = found else {
            if case .answer(let result, _) = found { return try result.get() }
            return []
        }
        let result = await task.value
        store(result, for: key, task: task)
        return try result.get()
    }

    /// One call to the wrapped resolver, counted.
    private func lookUp(_ host: String, port: Int) async -> Result<[IPAddress], WebImageError> {
        lookups.add(1, ordering: .relaxed)
        do throws(WebImageError) {
            return .success(try await base.addresses(for: host, port: port))
        } catch {
            return .failure(error)
        }
    }

    /// Replaces the pending entry `task` made with its answer (a later lookup may have
    /// replaced it already; then it stays).
    private func store(_ result: Result<[IPAddress], WebImageError>, for key: String,
                       task: Task<Result<[IPAddress], WebImageError>, Never>) {
        var keep = ttl
        if case .failure(let error) = result {
            // A cancelled caller says nothing about the name.
            if error.code == .cancelled {
                entries.withLock { if case .pending(let t) = $0[key], t == task { $0[key] = nil } }
                return
            }
            keep = negativeTTL
        }
        let expires = ContinuousClock.now + keep
        entries.withLock {
            if case .pending(let t) = $0[key], t == task { $0[key] = .answer(result, expires: expires) }
        }
    }

    /// Makes room for one entry: drops every expired answer, or else the one that expires first.
    private static func evict(_ entries: inout [String: Entry], now: ContinuousClock.Instant) {
        var soonest: (key: String, expires: ContinuousClock.Instant)?
        for (key, entry) in entries {
            guard case .answer(_, let expires) = entry else { continue }
            if expires <= now {
                entries[key] = nil
            } else if let current = soonest, current.expires <= expires {
                continue
            } else {
                soonest = (key, expires)
            }
        }
        if let soonest, !entries.isEmpty { entries[soonest.key] = nil }
    }
}
