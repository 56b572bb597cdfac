import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage show URL|FILE`: draws an image in the terminal.
///
/// The drawing goes to stdout whether or not it is a terminal, like `cat`. Animated
/// images show their first frame, or play with `--animate`: a local animation plays
/// through an ``AnimatedImagePlayer`` (frames decoded a few at a time, late frames
/// skipped); one from a URL is decoded whole and played frame by frame.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Draw an image in the terminal (24-bit colour half blocks).",
        discussion: """
            The image is scaled to the terminal's width (COLUMNS, else the window size, else 80 \
            columns); images narrower than that keep their size unless --width is given. \
            Transparent areas show a checkerboard (--background black for black).
            Exit status: 0 drawn, 1 could not load or decode, 2 bad usage.
            """
    )

    @Argument(help: "An image file, or a file:, http:, https: or data: URL.")
    var source: String

    @Option(parsing: .unconditional, help: "Draw exactly this many columns wide: 1 to 4096 (default: fit the terminal).")
    var width: Int?

    @Flag(help: "Play an animation in place instead of drawing its first frame.")
    var animate = false

    @Option(parsing: .unconditional, help: "With --animate: times to play, 1 to 10000 (default: the image's own count; 3 when it loops forever).")
    var loops: Int?

    @Option(help: "What shows through transparency: checker or black.")
    var background: String = TerminalImage.Background.checker.rawValue

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let width { try NumericOption.check(width, "--width", in: NumericOption.columns, "a number of columns") }
        if let loops { try NumericOption.check(loops, "--loops", in: NumericOption.loops, "a number of plays") }
        if TerminalImage.Background(rawValue: background) == nil {
            throw ValidationError("--background must be checker or black")
        }
    }

    func run() async throws {
        output.bootstrapLogging()
        let columns = width ?? Terminal.columns
        do {
            var decodeOptions = ImageDecodeOptions()
            // Decoding near the drawn size is much cheaper for large photos (JPEG DCT scaling).
            decodeOptions.thumbnailPixelSize = PixelSize(width: columns, height: ImageDecodeOptions.maxThumbnailSide)
            decodeOptions.firstFrameOnly = !animate
            let painter = TerminalImage(background: TerminalImage.Background(rawValue: background) ?? .checker)
            if animate, let animation = try await Self.animation(for: source, options: decodeOptions) {
                try await play(animation, columns: columns, painter: painter)
                return
            }
            let image = try await ImageSource.image(for: source, options: decodeOptions)
            try await draw(image, columns: columns, painter: painter)
        } catch {
            CommandError.report(error, subject: source)
            throw ExitCode.failure
        }
    }

    /// The source as an animation decoded frame by frame, or `nil` for a still image or a URL
    /// (those go through the loader and are decoded whole).
    private static func animation(for source: String, options: ImageDecodeOptions) async throws -> AnimatedImage? {
        if let url = URL(string: source), let scheme = url.scheme?.lowercased(), ["http", "https", "data"].contains(scheme) {
            return nil
        }
        let data = try ImageSource.fileData(for: source)
        return try await DecodeQueue.shared.run { try AnimatedImage(data: data, options: options) }
    }

    /// Plays through an ``AnimatedImagePlayer``: frames decode ahead on the decode queue,
    /// a few at a time, and a frame the terminal could not draw in time is skipped.
    private func play(_ animation: AnimatedImage, columns: Int, painter: TerminalImage) async throws {
        let size = TerminalImage.drawSize(for: animation.info.frameSize, columns: columns, fitOnly: width == nil)
        let rows = TerminalImage.rows(forPixelHeight: size.height)
        let plays = loops ?? (animation.info.loopCount == 0 ? 3 : animation.info.loopCount)
        let player = AnimatedImagePlayer(animation, loopCount: plays)
        let isFirst = Mutex(true)
        try await player.play { frame in
            let text = painter.render(frame.pixels.resampled(width: size.width, height: size.height))
            let first = isFirst.withLock { value in defer { value = false }; return value }
            // Back to the drawing's first row, so each frame paints over the last.
            Terminal.write((first ? "" : "\u{1B}[\(rows)A") + text)
        }
    }

    private func draw(_ image: DecodedImage, columns: Int, painter: TerminalImage) async throws {
        let size = TerminalImage.drawSize(for: PixelSize(width: image.width, height: image.height),
                                          columns: columns, fitOnly: width == nil)
        guard animate, image.isAnimated else {
            Terminal.write(painter.render(image.pixels.resampled(width: size.width, height: size.height)))
            return
        }
        let frames = image.frames.map { frame in
            (text: painter.render(frame.pixels.resampled(width: size.width, height: size.height)),
             seconds: Self.displayDuration(frame.duration))
        }
        let rows = TerminalImage.rows(forPixelHeight: size.height)
        let plays = loops ?? (image.loopCount == 0 ? 3 : image.loopCount)
        var isFirst = true
        for _ in 0..<plays {
            for frame in frames {
                // Back to the drawing's first row, so each frame paints over the last.
                Terminal.write((isFirst ? "" : "\u{1B}[\(rows)A") + frame.text)
                isFirst = false
                try await Task.sleep(for: .seconds(frame.seconds))
            }
        }
    }

    /// Browsers show frames shorter than 20 ms for 100 ms; so does this. A NaN or infinite
    /// duration also shows for 100 ms, and none for more than an hour, so `Task.sleep`
    /// always gets a duration it can represent.
    static func displayDuration(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds >= 0.02 else { return 0.1 }
        return min(seconds, 3600)
    }
}
