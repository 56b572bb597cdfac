import Foundation
import Synchronization

/// Decodes a GIF while it downloads: nothing until the first frame is complete, then
/// that frame as a partial image, and the full decode once all data is there.
///
/// Each call re-parses the data from the start (GIFs are small and giflib is fast); once
/// the first frame has been seen it is kept, so later partial calls cost nothing. Partial
/// data only throws when it is already known to be bad: not a GIF, or over the pixel
/// limit. Thread-safe: state sits behind a `Mutex`, calls may come from any thread.
public final class GIFIncrementalDecoder: ProgressiveImageDecoder {
    private let options: ImageDecodeOptions
    private let firstFrame = Mutex<DecodedImage?>(nil)

    /// Creates a decoder for one transfer, decoding with `options`.
    public init(options: ImageDecodeOptions = ImageDecodeOptions()) {
        self.options = options
    }

    /// See ``ProgressiveImageDecoder/decode(_:isComplete:)``. With `isComplete`, this is
    /// ``GIFCoder/decode(_:options:)``.
    public func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
        if isComplete {
            return try GIFCoder().decode(data, options: options)
        }
        if let cached = firstFrame.withLock({ $0 }) { return cached }
        // giflib needs the 13-byte header before it can say anything.
        guard data.count >= 13 else {
            if data.count >= 6, ImageFormat.detect(data) != .gif {
                throw WebImageError.badImageData("The data is not a GIF")
            }
            return nil
        }
        let outcome: GIFDecoder.Outcome
        do {
            outcome = try GIFDecoder(options: options, frameLimit: 1).decode(data)
        } catch let error where error.code == .imageTooLarge {
            throw error
        } catch {
            // A header giflib cannot read yet may still become valid with more data,
            // unless the signature is already wrong.
            if ImageFormat.detect(data) != .gif { throw error }
            return nil
        }
        guard !outcome.frames.isEmpty else { return nil }
        let image = try GIFCoder.image(from: outcome, options: options, isIncremental: true)
        firstFrame.withLock { $0 = image }
        return image
    }
}
