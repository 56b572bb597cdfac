import ArgumentParser
import Foundation
import WebImage

/// `webimage decode FILE`: decodes a local file with the built-in coders.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image file; print its size, or write its pixels as PNG or raw RGBA.",
        discussion: """
            --out X.rgba writes the first frame's raw RGBA bytes (width*height*4); --out X.png a PNG.
            An animation is decoded one frame at a time and no frame is kept: --json adds its \
            frame durations; --all-frames --out DIR writes every frame as DIR/frame-NNNN.png. \
            --eager decodes every frame into memory at once instead.
            Exit status: 0 decoded, 1 failed to decode, 2 bad usage.
            """
    )

    @Argument(help: "The image file to decode.")
    var file: String

    @Option(parsing: .unconditional, help: "Decode to fit WxH pixels, each side 1 to 65535, keeping the aspect ratio (e.g. 400x300).")
    var thumbnail: String?

    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: "Refuse images with more pixels than this: 1 to 10000000000 (default 100000000).")
    var maxPixels: Int?

    @Option(help: "Write the decoded first frame to OUT.png or OUT.rgba; with --all-frames, the directory for every frame.")
    var out: String?

    @Flag(name: .customLong("all-frames"), help: "With --out DIR: write every frame as DIR/frame-NNNN.png, one frame in memory at a time.")
    var allFrames = false

    @Flag(help: "Decode every frame of an animation into memory at once (as DecodedImage holds them).")
    var eager = false

    @Flag(help: "Print one JSON object on stdout instead of a sentence.")
    var json = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let thumbnail { _ = try NumericOption.thumbnail(thumbnail) }
        if let maxPixels { try NumericOption.check(maxPixels, "--max-pixels", in: NumericOption.maxPixels, "a number of pixels") }
        if allFrames {
            guard out != nil else { throw ValidationError("--all-frames needs --out DIR") }
            if eager { throw ValidationError("--all-frames and --eager cannot be combined") }
        } else if let out, !(out.hasSuffix(".png") || out.hasSuffix(".rgba")) {
            throw ValidationError("--out must end in .png or .rgba")
        }
    }

    func run() async throws {
        output.bootstrapLogging()
        var decodeOptions = ImageDecodeOptions()
        decodeOptions.thumbnailPixelSize = try thumbnail.map(NumericOption.thumbnail)
        if let maxPixels { decodeOptions.maxPixelCount = maxPixels }
        let options = decodeOptions
        let start = ContinuousClock.now
        var line = JSONLine()
        line.add("file", file)
        do {
            let data = try ImageSource.fileData(for: file)
            if !eager, let animation = try await DecodeQueue.shared.run({ try AnimatedImage(data: data, options: options) }) {
                try await decode(animation, bytes: data.count, start: start, line: line)
                return
            }
            let image = try await DecodeQueue.shared.run {
                try ImageCodersManager.shared.decode(data, options: options)
            }
            let elapsed = start.duration(to: .now)
            if allFrames, let out {
                try Self.prepareDirectory(out)
                try Self.writeFrame(ImageFrame(pixels: image.pixels), index: 0, directory: out)
            } else if let out {
                try write(image, to: out)
            }
            line.add("ok", true)
            line.add("format", image.format.rawValue)
            line.add("width", image.width)
            line.add("height", image.height)
            line.add("frames", image.frameCount)
            line.add("loopCount", image.loopCount)
            line.add("bytes", data.count)
            line.add("ms", milliseconds: elapsed.milliseconds)
            if json {
                print(line.text)
            } else {
                let animation = image.isAnimated ? ", \(image.frameCount) frames, loop \(image.loopCount)" : ""
                print("\(file): \(image.format.rawValue) \(image.width)x\(image.height)\(animation), "
                      + "\(data.count) bytes, \(String(format: "%.1f", elapsed.milliseconds)) ms")
            }
        } catch {
            if json {
                line.add("ok", false)
                line.add("error", object: .error(error))
                print(line.text)
            }
            CommandError.report(error, subject: file)
            throw ExitCode.failure
        }
    }

    private func write(_ image: DecodedImage, to path: String) throws {
        let data: Data
        if path.hasSuffix(".rgba") {
            data = Data(image.pixels.bytes)
        } else {
            data = try ImageCodersManager.shared.encode(image, as: .png, options: ImageEncodeOptions())
        }
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WebImageError(.cacheIOFailed, "Cannot write \(path): \(error.localizedDescription)")
        }
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
