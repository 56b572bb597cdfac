import Foundation
import Testing
@testable import WebImage

/// The bulk job's DNS cache: one lookup per name per TTL, shared by concurrent callers,
/// failures remembered briefly, a bounded number of names.
@Suite("CachingHostResolver", .timeLimit(.minutes(1)))
struct CachingHostResolverTests {
    @Test("A thousand lookups of ten names reach the resolver ten times")
    func oneLookupPerName() async throws {
        // Given a resolver that knows ten names
        let names = (0..<10).map { "host\($0).example" }
        let scripted = ScriptedResolver(Dictionary(uniqueKeysWithValues: names.enumerated().map {
            ($1.uppercased(), [["192.0.2.\($0 + 1)"]])
        }))
        let cache = CachingHostResolver(scripted)
        // When 1,000 lookups run, 100 per name, all at once
        try await withThrowingTaskGroup(of: [IPAddress].self) { group in
            for i in 0..<1000 {
                group.addTask { try await cache.addresses(for: names[i % 10].uppercased(), port: 443) }
            }
            for try await answer in group { #expect(answer.count == 1) }
        }
        // Then each name was looked up once (case does not matter)
        #expect(cache.lookupCount == 10)
        for name in names { #expect(scripted.lookups(of: name.uppercased()) == 1) }
        #expect(try await cache.addresses(for: "host3.example", port: 443) == [try #require(IPAddress("192.0.2.4"))])
    }

    @Test("An answer is used for its TTL, then looked up again")
    func expires() async throws {
        let scripted = ScriptedResolver(["a.example": [["192.0.2.1"], ["192.0.2.2"]]])
        // A TTL long enough that a stall between the first two calls cannot expire it.
        let cache = CachingHostResolver(scripted, ttl: .seconds(1))
        #expect(try await cache.addresses(for: "a.example", port: 80) == [try #require(IPAddress("192.0.2.1"))])
        #expect(try await cache.addresses(for: "a.example", port: 80) == [try #require(IPAddress("192.0.2.1"))])
        #expect(scripted.lookups(of: "a.example") == 1)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await cache.addresses(for: "a.example", port: 80) == [try #require(IPAddress("192.0.2.2"))])
        #expect(scripted.lookups(of: "a.example") == 2)
    }

    @Test("A failed lookup is remembered for the negative TTL")
    func negative() async throws {
        let scripted = ScriptedResolver([:])
        let cache = CachingHostResolver(scripted, negativeTTL: .seconds(1))
        for _ in 0..<3 {
            await #expect(throws: WebImageError.self) { try await cache.addresses(for: "nx.example", port: 80) }
        }
        #expect(scripted.lookups(of: "nx.example") == 1)
        try await Task.sleep(for: .milliseconds(1100))
        await #expect(throws: WebImageError.self) { try await cache.addresses(for: "nx.example", port: 80) }
        #expect(scripted.lookups(of: "nx.example") == 2)
    }

    @Test("At most `capacity` answers are kept: the one expiring first goes")
    func bounded() async throws {
        let scripted = ScriptedResolver(["a": [["192.0.2.1"]], "b": [["192.0.2.2"]], "c": [["192.0.2.3"]]])
        let cache = CachingHostResolver(scripted, capacity: 2)
        _ = try await cache.addresses(for: "a", port: 80)
        _ = try await cache.addresses(for: "b", port: 80)
        _ = try await cache.addresses(for: "c", port: 80)  // drops a
        _ = try await cache.addresses(for: "c", port: 80)
        _ = try await cache.addresses(for: "a", port: 80)  // looked up again
        #expect(scripted.lookups(of: "a") == 2)
        #expect(scripted.lookups(of: "c") == 1)
    }

    @Test("cachedAddresses answers what a lookup left, without looking up: nothing before, the answer or failure after")
    func cachedAnswers() async throws {
        let scripted = ScriptedResolver(["a.example": [["192.0.2.1"]]])
        let cache = CachingHostResolver(scripted)
        #expect(cache.cachedAddresses(for: "a.example", port: 80) == nil)
        _ = try await cache.addresses(for: "a.example", port: 80)
        let address = try #require(IPAddress("192.0.2.1"))
        #expect(try cache.cachedAddresses(for: "A.Example", port: 80)?.get() == [address])
        // Another port is another answer.
        #expect(cache.cachedAddresses(for: "a.example", port: 443) == nil)
        await #expect(throws: WebImageError.self) { try await cache.addresses(for: "nx.example", port: 80) }
        #expect(throws: WebImageError.self) { try cache.cachedAddresses(for: "nx.example", port: 80)?.get() }
        #expect(scripted.lookups(of: "a.example") == 1)
        #expect(scripted.lookups(of: "nx.example") == 1)
        // The system resolver remembers nothing.
        #expect(SystemHostResolver().cachedAddresses(for: "localhost", port: 80) == nil)
    }
}
