import Crypto
import Foundation
import Synchronization
import Testing
import WebImageCodecs
import WebImageTestOrigin

/// Shared parts of the dataset-mode tests (`fetch --file` with img2dataset's flags):
/// generated images, list files, a tar reader of the test's own, and the expected names.
enum DatasetFixture {
    /// A JFIF JPEG of the corpus (512×512 progressive, per its SOF2 marker).
    static let jpegPath = "jpeg/jpeg-decoder/tower_progressive.jpg"

    /// A PNG of `width × height` filled with `color` (RGBA).
    static func png(_ width: Int, _ height: Int, color: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 255, 255)) throws -> [UInt8] {
        var pixels = PixelBuffer(width: width, height: height)
        pixels.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                (p[i], p[i + 1], p[i + 2], p[i + 3]) = color
            }
        }
        return Array(try ImageCodersManager.shared.encode(DecodedImage(pixels: pixels, format: .png), as: .png,
                                                          options: ImageEncodeOptions()))
    }

    /// Lowercase hex SHA-256.
    static func sha256(_ bytes: some DataProtocol) -> String {
        SHA256.hash(data: Data(bytes)).map { String(format: "%02x", $0) }.joined()
    }

    /// img2dataset's key, from its own formula in floating point (`ceil(log10(N))` digits
    /// for the index, 5 more for the shard), as its `compute_key` writes it.
    static func key(shard: Int, index: Int, perShard: Int) -> String {
        let digits = Int(ceil(log10(Double(perShard))))
        let number = shard * Int(pow(10.0, Double(digits))) + index
        return String(format: "%0\(digits + 5)d", number)
    }

    /// Writes `text` as `name` in `directory`; returns its path.
    static func write(_ text: String, _ name: String, in directory: TemporaryDirectory) throws -> String {
        let url = directory.url.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Gzips `path` with the system's gzip into `path.gz`; returns the new path.
    static func gzip(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-k", "-f", path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gzip failed")
        return path + ".gz"
    }

    /// The members of a tar, in order: ustar headers read by hand (name, size, type), so
    /// the test does not trust our writer's library to read its own output.
    static func tarMembers(_ url: URL) throws -> [(name: String, data: Data)] {
        let bytes = [UInt8](try Data(contentsOf: url))
        try #require(bytes.count % 512 == 0, "\(url.lastPathComponent) is not in 512-byte blocks")
        var members: [(String, Data)] = []
        var offset = 0
        while offset + 512 <= bytes.count {
            let header = bytes[offset..<offset + 512]
            if header.allSatisfy({ $0 == 0 }) { break }
            let name = String(decoding: header.prefix(100).prefix { $0 != 0 }, as: UTF8.self)
            let sizeText = String(decoding: header.dropFirst(124).prefix(12).prefix { $0 != 0 && $0 != 32 }, as: UTF8.self)
            let size = try #require(Int(sizeText, radix: 8), "bad size field in \(url.lastPathComponent)")
            let type = header[header.startIndex + 156]
            let dataStart = offset + 512
            try #require(dataStart + size <= bytes.count, "member \(name) runs past the end")
            if type == UInt8(ascii: "0") || type == 0 {
                members.append((name, Data(bytes[dataStart..<dataStart + size])))
            }
            offset = dataStart + (size + 511) / 512 * 512
        }
        return members
    }

    /// A JSON text as an object.
    static func object(_ data: Data) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any])
    }

    /// The keys of a JSON object text in the order they are written (top level only).
    static func keyOrder(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("    \""), !line.hasPrefix("     "), let end = line.dropFirst(5).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 5)..<end])
        }
    }

    /// Every file under `directory` (relative path → bytes), hidden ones included.
    static func tree(_ directory: URL) -> [String: Data] {
        BulkFixture.files(in: directory, includingPartial: true)
    }

    /// `tree` without the stats files' times: `NNNNN_stats.json` is kept with its
    /// `duration`, `start_time` and `end_time` set to 0, everything else byte for byte.
    static func comparable(_ directory: URL) throws -> [String: Data] {
        var files = tree(directory)
        for (name, data) in files where name.hasSuffix("_stats.json") {
            var object = try object(data)
            for field in ["duration", "start_time", "end_time"] {
                try #require(object[field] is Double || object[field] is NSNumber, "\(name) has no \(field)")
                object[field] = 0
            }
            files[name] = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        return files
    }
}

/// Arrival times of requests, per host, recorded by origin handlers.
final class ArrivalLog: Sendable {
    private let times = Mutex<[String: [ContinuousClock.Instant]]>([:])

    func record(_ host: String) { times.withLock { $0[host, default: []].append(.now) } }

    func arrivals(_ host: String) -> [ContinuousClock.Instant] { times.withLock { $0[host] ?? [] } }

    /// The most arrivals at `host` within any span of `window`.
    func peak(_ host: String, within window: Duration) -> Int {
        let list = arrivals(host).sorted()
        var best = 0
        var start = 0
        for end in list.indices {
            while list[start] + window < list[end] { start += 1 }
            best = max(best, end - start + 1)
        }
        return best
    }
}
