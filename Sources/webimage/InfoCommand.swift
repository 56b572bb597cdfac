import ArgumentParser
import Foundation
import WebImage

/// `webimage info FILE|URL`: what an image is — format, size, orientation, frames,
/// alpha, colour profile, EXIF/IPTC/XMP — and on request its colours and placeholders,
/// computed as `webimage serve`'s `/info` computes them (``ImageInfo``).
///
/// With `--json` it prints exactly the object `/info` answers for the same options (one
/// line; imgproxy Pro's keys), or `{"ok":false,"error":{…}}` on failure.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe an image: format, size, metadata, colours, BlurHash and ThumbHash.",
        discussion: """
            FILE is a path or file: URL; URL an http(s) URL (fetched without decoding). The \
            options are /info's: --blurhash 4:3, --thumbhash, --average, --dominant-colors, \
            --palette N, --page N; --all turns every one on (BlurHash 4:3, palette 8). \
            Exit status: 0 described, 1 failed, 2 bad usage.
            """)

    @Argument(help: "The image file or URL.")
    var source: String

    @Flag(help: "Print /info's JSON object on stdout instead of lines of text.")
    var json = false

    @Option(help: "BlurHash with X:Y components (1…9 each), e.g. 4:3.")
    var blurhash: String?

    @Flag(help: "ThumbHash (upper-case hex, as /info's thumb_hash).")
    var thumbhash = false

    @Flag(help: "The average colour.")
    var average = false

    @Flag(name: .customLong("dominant-colors"), help: "The six dominant colours (vibrant, muted… light and dark).")
    var dominantColors = false

    @Option(parsing: .unconditional, help: "A palette of at most N colours (2…256).")
    var palette: Int?

    @Option(parsing: .unconditional, help: "The frame (page) colours and hashes are computed from, 0-based.")
    var page: Int?

    @Flag(help: "Everything: frames, alpha and transparency, ICC profile, colours, BlurHash 4:3, ThumbHash, palette of 8.")
    var all = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let blurhash { _ = try Self.components(blurhash) }
        if let palette, !(2...256).contains(palette) { throw ValidationError("--palette must be from 2 to 256; got \(palette)") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more; got \(page)") }
    }

    /// `X:Y` BlurHash components.
    static func components(_ text: String) throws -> ImageInfo.Components {
        let parts = text.split(separator: ":").map { Int($0) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (1...9).contains(x), (1...9).contains(y) else {
            throw ValidationError("--blurhash takes X:Y, each from 1 to 9 (e.g. 4:3); got \(text)")
        }
        return ImageInfo.Components(x: x, y: y)
    }

    var options: ImageInfo.Options {
        var o = ImageInfo.Options()
        o.blurHash = try? blurhash.map(Self.components)
        o.thumbHash = thumbhash
        o.average = average
        o.dominantColors = dominantColors
        o.palette = palette ?? 0
        o.page = page ?? 0
        if all {
            o.pagesNumber = true
            o.alpha = true
            o.checkTransparency = true
            o.iccProfile = true
            o.average = true
            o.dominantColors = true
            o.thumbHash = true
            if o.blurHash == nil { o.blurHash = ImageInfo.Components(x: 4, y: 3) }
            if o.palette == 0 { o.palette = 8 }
        }
        return o
    }

    func run() async throws {
        output.bootstrapLogging()
        let options = self.options
        do {
            let data = try await Self.bytes(of: source)
            let info = try await DecodeQueue.shared.run { try ImageInfo(data, options: options) }
            if json {
                print(String(decoding: info.jsonData(), as: UTF8.self))
            } else {
                print(Self.describe(info))
            }
        } catch {
            if json {
                var line = JSONLine()
                line.add("ok", false)
                line.add("error", object: .error(error))
                print(line.text)
            }
            CommandError.report(error, subject: source)
            throw ExitCode.failure
        }
    }

    /// The bytes of a path, a `file:` URL, or an http(s) URL (downloaded, not decoded).
    static func bytes(of argument: String) async throws -> Data {
        guard let url = URL(string: argument), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return try ImageSource.fileData(for: argument)
        }
        return try await ImageDownloader.withDownloader(config: DownloaderConfig()) { downloader in
            let response = try await downloader.loadImage(with: url, options: [.avoidDecodeImage])
            guard let data = response.data, !data.isEmpty else { throw WebImageError.badImageData("\(argument) is empty") }
            return data
        }
    }

    /// Lines of text for a person.
    static func describe(_ info: ImageInfo) -> String {
        var lines = [
            "format: \(info.format.rawValue) (\(info.format.mimeType)), \(info.byteCount) bytes",
            "size: \(info.width)x\(info.height), orientation \(info.orientation.rawValue), "
                + "\(info.frameCount) frame\(info.frameCount == 1 ? "" : "s")",
            "alpha channel: \(info.hasAlphaChannel ? "yes" : "no")" + (info.isTransparent.map { $0 ? ", transparent pixels" : ", opaque" } ?? ""),
            "ICC profile: \(info.metadata.iccProfile.map { "\($0.count) bytes" } ?? "none")",
        ]
        func hex(_ c: RGBA) -> String { String(format: "#%02x%02x%02x", c.r, c.g, c.b) + (c.a == 255 ? "" : String(format: " alpha %d", c.a)) }
        let exif = info.metadata.exifEntries
        if !exif.isEmpty { lines.append("EXIF: " + exif.prefix(8).map { "\($0.title)=\($0.value)" }.joined(separator: ", ")) }
        let iptc = info.metadata.iptcDatasets
        if !iptc.isEmpty { lines.append("IPTC: " + iptc.map { "\($0.name)=\($0.values.joined(separator: "; "))" }.joined(separator: ", ")) }
        if info.metadata.xmp != nil { lines.append("XMP: \(info.metadata.xmpProperties.keys.sorted().joined(separator: ", "))") }
        if let average = info.averageColor { lines.append("average: \(hex(average))") }
        if let dominant = info.dominantColors { lines.append("dominant: " + dominant.named.map { "\($0.name) \(hex($0.color))" }.joined(separator: ", ")) }
        if let palette = info.palette { lines.append("palette: " + palette.map { hex($0.color) }.joined(separator: " ")) }
        if let blurHash = info.blurHash { lines.append("BlurHash: \(blurHash)") }
        if let thumbHash = info.thumbHash { lines.append("ThumbHash: \(ThumbHash.hex(thumbHash))") }
        return lines.joined(separator: "\n")
    }
}
