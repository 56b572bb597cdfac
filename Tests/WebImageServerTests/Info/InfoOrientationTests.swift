import Foundation
import Testing
import WebImageServer

/// `/info`'s placeholders describe the image as the proxy serves it: upright. The corpus'
/// `Landscape_N.jpg` store one picture under each EXIF orientation 1–8, so that all eight
/// look the same once turned upright; hashes computed on the stored pixels would differ
/// (orientation 3 is upside down, 6 and 8 are on their side).
@Suite("/info hashes are of the upright image", .serialized)
struct InfoOrientationTests {
    @Test("BlurHash, ThumbHash and the average colour agree across EXIF orientations 1–8")
    func upright() async throws {
        var config = ProxyConfig.testing
        config.localRoot = Fixtures.corpus.appendingPathComponent("jpeg/exif-orientation")
        try await ProxyHarness.with(config) { proxy in
            var seen: [String] = []
            for n in 1...8 {
                let answer = try await proxy.get("/info/unsafe/bh:4:3/th:1/avg:1/plain/local:///Landscape_\(n).jpg")
                #expect(answer.status == 200)
                let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
                #expect(object["width"] as? Int == 1800 && object["height"] as? Int == 1200, "Landscape_\(n)")
                let blurHash = try #require(object["blurhash"] as? String)
                let thumbHash = try #require(object["thumb_hash"] as? String)
                seen.append(blurHash + " " + thumbHash)
            }
            #expect(Set(seen).count == 1, "\(seen)")
        }
    }
}
