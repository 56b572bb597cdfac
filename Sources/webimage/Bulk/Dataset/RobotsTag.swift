import Foundation

/// The `X-Robots-Tag` check of img2dataset (its downloader's `is_disallowed`): a response
/// is refused when one of its `X-Robots-Tag` values carries a disallowed directive, either
/// for every robot (`noai`) or for ours by name (`mybot: noai`, matched against
/// `--user-agent-token`).
///
/// Each value is split at its first `:`; the part before it, lower-cased but not trimmed,
/// names the robot; the directives after it are split at `,`, trimmed and lower-cased. So
/// `noindex, unavailable_after: 25 Jun 2010` reads as directives for a robot called
/// `noindex, unavailable_after` and refuses nothing, as in img2dataset.
struct RobotsTag: Sendable {
    /// img2dataset's default list.
    static let defaultDirectives = ["noai", "noimageai", "noindex", "noimageindex"]

    /// Lower-cased, trimmed; empty turns the check off.
    let disallowed: Set<String>
    /// `--user-agent-token`, trimmed and lower-cased; `nil` when not given.
    let token: String?

    init(disallowed: [String], token: String?) {
        self.disallowed = Set(disallowed.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        self.token = token.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Whether `values` (every `X-Robots-Tag` header of the final response) refuse the image.
    func refuses(_ values: [String]) -> Bool {
        guard !disallowed.isEmpty else { return false }
        for value in values {
            let parts = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let robot = parts.count == 2 ? parts[0].lowercased() : nil
            guard robot == nil || robot == token else { continue }
            let directives = (parts.last ?? "").split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if directives.contains(where: disallowed.contains) { return true }
        }
        return false
    }
}
