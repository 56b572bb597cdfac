import Foundation
import Testing
@testable import WebImageServer

/// The byte-level base64url decoder and path search every proxy request runs, checked
/// against Foundation's decoder and search (RFC 4648 §5: `-` and `_` for `+` and `/`).
@Suite("imgproxy language: base64url sources and path search", .timeLimit(.minutes(1)))
struct SourceDecodingTests {
    /// The reference: RFC 4648's URL-safe alphabet mapped to the standard one, padded, and
    /// decoded by Foundation; `nil` for a character outside the alphabet or a length that
    /// leaves a lone digit.
    static func reference(_ text: String) -> [UInt8]? {
        var trimmed = Substring(text)
        while trimmed.last == "=" { trimmed = trimmed.dropLast() }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        guard trimmed.allSatisfy(alphabet.contains), trimmed.count % 4 != 1 else { return nil }
        let standard = trimmed.map { $0 == "-" ? "+" : $0 == "_" ? "/" : String($0) }.joined()
        return Data(base64Encoded: standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)).map(Array.init)
    }

    @Test("every length and a mix of bad characters decode as Foundation does")
    func matchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let hostile = Array("+/=.% é\u{0}\n")
        var accepted = 0, refused = 0
        for round in 0..<4_000 {
            let length = round % 40
            var text = String((0..<length).map { _ in digits.randomElement(using: &generator) ?? "A" })
            if round % 5 == 0, !text.isEmpty {
                var characters = Array(text)
                characters[Int.random(in: 0..<characters.count, using: &generator)] = hostile.randomElement(using: &generator) ?? "+"
                text = String(characters)
            }
            if round % 7 == 0 { text += String(repeating: "=", count: round % 3) }
            let ours = SourceDecoding.base64URL(Substring(text))
            #expect(ours == Self.reference(text), "\(text)")
            if ours == nil { refused += 1 } else { accepted += 1 }
        }
        // Both kinds occur, so neither branch goes unchecked.
        #expect(accepted > 1_000 && refused > 500)
    }

    @Test("a URL's bytes round-trip, whatever their value")
    func roundTrip() {
        let bytes = (0..<256).map { UInt8($0) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(SourceDecoding.base64URL(Substring(encoded)) == bytes)
    }

    @Test("the byte search finds what Foundation's range(of:) finds, next to multi-byte characters")
    func asciiSearch() {
        let texts = ["rs:fit:1:1/plain/http://x/a.jpg", "é/plain/x", "/plain/", "/plai/plain/", "plain/x", "ééé", "",
                     "a/pl/plain", "x/plain/y/plain/z"]
        for text in texts {
            let ours = ProxyURL.asciiRange(of: "/plain/", in: Substring(text)).map { text[$0] }
            let foundation = text.range(of: "/plain/").map { text[$0] }
            #expect(ours == foundation, "\(text)")
            let oursStart = ProxyURL.asciiRange(of: "/plain/", in: Substring(text)).map { text.distance(from: text.startIndex, to: $0.lowerBound) }
            let foundationStart = text.range(of: "/plain/").map { text.distance(from: text.startIndex, to: $0.lowerBound) }
            #expect(oursStart == foundationStart, "\(text)")
        }
    }

    @Test("paths split by bytes, as imgproxy's Go splits them: a slash before a combining mark still separates")
    func byteSplit() {
        #expect(ProxyURL.split("a/\u{301}b//c", atByte: UInt8(ascii: "/")) == ["a", "\u{301}b", "", "c"])
        #expect(ProxyURL.split("", atByte: UInt8(ascii: "/")) == [""])
        #expect(ProxyURL.split("rs:fit:1:2", by: ":") == ["rs", "fit", "1", "2"])
        #expect(ProxyURL.split("rs::fit::1", by: "::") == ["rs", "fit", "1"])
        // Character splitting would keep "/\u{301}" as one character: the contrast this test is about.
        #expect("a/\u{301}b".split(separator: "/").count == 1)
    }
}
