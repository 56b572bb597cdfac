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
/// then connects to the address it looked up, so the cache decides how often DNS is asked,
/// and a hop to a name it remembers (``cachedAddresses(for:port:)``) is checked on the
/// thread the hop is on, a redirect's event loop included, without a task.
public final class CachingHostResolver: HostResolving {
    private struct Answer {
        var result: Result<[IPAddress], WebImageError>
        var expires: ContinuousClock.Instant
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

    private let answers = Mutex<[String: Answer]>([:])
    /// Lookups in progress: one per name, however many callers wait for it.
    private let lookupsInFlight = SingleFlight<String, Result<[IPAddress], WebImageError>>()
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
        if let cached = cachedAddresses(for: host, port: port) { return try cached.get() }
        let key = Self.key(host, port)
        let result: Result<[IPAddress], WebImageError>
        do {
            result = try await lookupsInFlight.value(forKey: key) { [self] in
                let result = await lookUp(host, port: port)
                store(result, for: key)
                return result
            }
        } catch {
            throw WebImageError.cancelled("The lookup of \(host) was cancelled")
        }
        return try result.get()
    }

    /// The answer remembered for `host` and `port` while it has not expired (a failure
    /// too, for ``negativeTTL``); `nil` otherwise. Runs on the calling thread (a look
    /// under a `Mutex`, no lookup), so an event loop may ask it.
    public func cachedAddresses(for host: String, port: Int) -> Result<[IPAddress], WebImageError>? {
        let key = Self.key(host, port)
        let now = ContinuousClock.now
        guard let answer = answers.withLock({ $0[key] }), answer.expires > now else { return nil }
        return answer.result
    }

    private static func key(_ host: String, _ port: Int) -> String { host.lowercased() + "|" + String(port) }

    /// One call to the wrapped resolver, counted.
    private func lookUp(_ host: String, port: Int) async -> Result<[IPAddress], WebImageError> {
        lookups.add(1, ordering: .relaxed)
        do throws(WebImageError) {
            return .success(try await base.addresses(for: host, port: port))
        } catch {
            return .failure(error)
        }
    }

    /// Remembers an answer (a failure for less long); a cancelled lookup says nothing
    /// about the name and is not remembered.
    private func store(_ result: Result<[IPAddress], WebImageError>, for key: String) {
        var keep = ttl
        if case .failure(let error) = result {
            if error.code == .cancelled { return }
            keep = negativeTTL
        }
        let now = ContinuousClock.now
        answers.withLock { answers in
            if answers[key] == nil, answers.count >= capacity { Self.evict(&answers, now: now) }
            answers[key] = Answer(result: result, expires: now + keep)
        }
    }

    /// Makes room for one entry: drops every expired answer, or else the one that expires first.
    private static func evict(_ answers: inout [String: Answer], now: ContinuousClock.Instant) {
        var soonest: (key: String, expires: ContinuousClock.Instant)?
        for (key, answer) in answers {
            if answer.expires <= now {
                answers[key] = nil
            } else if let current = soonest, current.expires <= answer.expires {
                continue
            } else {
                soonest = (key, answer.expires)
            }
        }
        if let soonest { answers[soonest.key] = nil }
    }
}
