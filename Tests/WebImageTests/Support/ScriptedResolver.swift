import Foundation
import Synchronization
@testable import WebImage

/// A ``HostResolving`` that answers from a script: each lookup of a name takes the next
/// answer (the last one repeats), as a DNS-rebinding attacker's server would. Counts lookups.
final class ScriptedResolver: HostResolving {
    private let answers: [String: [[String]]]
    private let calls = Mutex<[String: Int]>([:])

    /// `answers[name]` lists the addresses returned by the 1st, 2nd, … lookup of `name`.
    init(_ answers: [String: [[String]]]) {
        self.answers = answers
    }

    func lookups(of host: String) -> Int { calls.withLock { $0[host] ?? 0 } }

    func addresses(for host: String, port: Int) async throws(WebImageError) -> [IPAddress] {
        let n = calls.withLock { c -> Int in
            c[host, default: 0] += 1
            return c[host]! - 1
        }
        guard let script = answers[host], !script.isEmpty else {
            throw WebImageError(.cannotFindHost, "\(host) is not in the script")
        }
        return script[min(n, script.count - 1)].compactMap(IPAddress.init)
    }
}
