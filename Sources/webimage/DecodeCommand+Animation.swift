#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import WebImage

/// Animations: decoded one frame at a time through ``AnimatedImage``, each frame dropped
/// (or written, with `--all-frames`) before the next, so memory stays at about two frames
/// whatever the frame count.
extension DecodeCommand {
    /// What one pass over the frames found.
    struct FrameWalk: Sendable {
        var frames = 0
        /// The error that ended the walk early (a damaged frame), when frames came before it.
        var damage: WebImageError?
    }

    /// Decodes every frame of `animation` on the decode queue, writes what was asked, and
    /// prints the result line.
    func decode(_ animation: AnimatedImage, bytes: Int, start: ContinuousClock.Instant, line: JSONLine) async throws {
        var line = line
        let directory = allFrames ? out : nil
        let first = allFrames ? nil : out
        if let directory { try Self.prepareDirectory(directory) }
        let walk = try await DecodeQueue.shared.run { () throws -> FrameWalk in
            var walk = FrameWalk()
            do throws(WebImageError) {
                try animation.forEachFrame { index, frame throws(WebImageError) in
                    if let directory {
                        try Self.writeFrame(frame, index: index, directory: directory)
                    } else if index == 0, let first {
                        try Self.writeFirstFrame(frame, info: animation.info, to: first)
                    }
                    walk.frames += 1
                }
            } catch {
                guard walk.frames > 0, error.code == .badImageData else { throw error }
                walk.damage = error
            }
            return walk
        }
        let elapsed = start.duration(to: .now)
        let info = animation.info
        line.add("ok", true)
        line.add("format", info.format.rawValue)
        line.add("width", info.frameSize.width)
        line.add("height", info.frameSize.height)
        line.add("frames", walk.frames)
        line.add("loopCount", info.loopCount)
        line.add("bytes", bytes)
        line.add("ms", milliseconds: elapsed.milliseconds)
        let truncated = walk.damage != nil || info.isTruncated
        if truncated { line.add("truncated", true) }
        if json {
            let durations = info.durations.prefix(walk.frames).map { String(format: "%.3f", $0) }.joined(separator: ",")
            // JSONLine has no arrays: the durations go in as the last field.
            print(String(line.text.dropLast()) + ",\"durations\":[\(durations)]}")
        } else {
            print("\(file): \(info.format.rawValue) \(info.frameSize.width)x\(info.frameSize.height), "
                  + "\(walk.frames) frames, loop \(info.loopCount)\(truncated ? " (truncated)" : ""), "
                  + "\(bytes) bytes, \(String(format: "%.1f", elapsed.milliseconds)) ms")
        }
    }

    /// Creates `path` as a directory when it is not one yet.
    static func prepareDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw WebImageError(.cacheIOFailed, "Cannot create \(path): \(error.localizedDescription)")
        }
    }

    /// Writes `frame` as `directory/frame-NNNN.png`: to a hidden partial file renamed into
    /// place, so a frame file is whole or absent, without an fsync per frame (``PlainFile``).
    static func writeFrame(_ frame: ImageFrame, index: Int, directory: String) throws(WebImageError) {
        let name = String(format: "frame-%04d.png", index)
        let path = (directory as NSString).appendingPathComponent(name)
        let partial = (directory as NSString).appendingPathComponent("." + name + ".partial")
        let image = DecodedImage(pixels: frame.pixels, format: .png)
        let png = try ImageCodersManager.shared.encode(image, as: .png, options: ImageEncodeOptions())
        if let reason = PlainFile.save(png, to: partial) {
            unlink(partial)
            throw WebImageError(.cacheIOFailed, "Cannot write \(partial): \(reason)")
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw WebImageError(.cacheIOFailed, "Cannot write \(path): \(reason)")
        }
    }

    /// Writes the first frame to OUT.png or OUT.rgba.
    static func writeFirstFrame(_ frame: ImageFrame, info: AnimationInfo, to path: String) throws(WebImageError) {
        if path.hasSuffix(".rgba") {
            try save(Data(frame.pixels.bytes), to: path)
        } else {
            let image = DecodedImage(pixels: frame.pixels, format: info.format)
            try save(try ImageCodersManager.shared.encode(image, as: .png, options: ImageEncodeOptions()), to: path)
        }
    }

    private static func save(_ data: Data, to path: String) throws(WebImageError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WebImageError(.cacheIOFailed, "Cannot write \(path): \(error.localizedDescription)")
        }
    }
}
