import CWebP
import Foundation
import Synchronization

/// Decodes a WebP still while its bytes arrive, with libwebp's incremental decoder.
///
/// Each call feeds libwebp only the bytes that are new since the last call; the
/// libwebp decoder lives as long as this object (or until the image is finished).
/// A partial image has the rows decoded so far and transparent rows below them,
/// ``DecodedImage/isIncremental`` set, and no EXIF orientation applied yet: WebP
/// stores its `EXIF` chunk after the pixels. With `isComplete`, the result equals
/// ``WebPCoder/decode(_:options:)`` of the same bytes.
///
/// Animated WebP returns `nil` until the data is complete and then decodes every
/// frame at once: libwebp has no incremental animation decoder.
///
/// Calls may come from any thread, one at a time; state sits behind a `Mutex`.
public final class WebPIncrementalDecoder: ProgressiveImageDecoder {
    private let options: ImageDecodeOptions
    private let state = Mutex(State())

    private struct State {
        var header: WebPHeader?
        /// Heap-allocated because libwebp keeps pointers into it for the decoder's life.
        var config: UnsafeMutablePointer<WebPDecoderConfig>?
        var decoder: OpaquePointer?
        /// The size asked for (stored orientation, planned upright) and libwebp's output size.
        var targetSize = PixelSize(width: 0, height: 0)
        var decodeSize = PixelSize(width: 0, height: 0)
        var appended = 0
        var status = VP8_STATUS_SUSPENDED
        var finished: DecodedImage?
        /// The `ICCP` profile, read once at the first decoded rows (the chunk precedes them).
        var color: ColorSource?
        var colorIsRead = false
    }

    /// Creates a decoder for one transfer; `options` as for ``WebPCoder/decode(_:options:)``.
    public init(options: ImageDecodeOptions = ImageDecodeOptions()) {
        self.options = options
    }

    deinit {
        state.withLock { Self.release(&$0) }
    }

    /// Decodes from all bytes received so far; see ``ProgressiveImageDecoder/decode(_:isComplete:)``.
    ///
    /// - Returns: `nil` while no row is decoded yet (or for an animation before the end).
    /// - Throws: ``WebImageError/Code/imageTooLarge`` as soon as the header exceeds the pixel
    ///   limit, ``WebImageError/Code/badImageData`` for data libwebp rejects.
    public func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
        try state.withLock { s throws(WebImageError) -> DecodedImage? in
            if let finished = s.finished { return finished }
            if s.decoder == nil {
                guard try start(&s, data) else {
                    return isComplete ? try oneShot(data) : nil
                }
            }
            append(&s, data)
            if s.status == VP8_STATUS_OK && isComplete {
                let image = try finalImage(&s, data)
                s.finished = image
                Self.release(&s)
                return image
            }
            // Complete data libwebp could not finish takes the one-shot path, so the
            // outcome (and the error) is exactly a one-shot decode's.
            if isComplete { return try oneShot(data) }
            guard s.status == VP8_STATUS_OK || s.status == VP8_STATUS_SUSPENDED else {
                throw WebPCoder.error(for: s.status)
            }
            return partialImage(&s, data)
        }
    }

    /// Reads the header and creates the libwebp decoder.
    ///
    /// - Returns: `false` while the header is incomplete, and for animations.
    private func start(_ s: inout State, _ data: Data) throws(WebImageError) -> Bool {
        if s.header == nil {
            let parsed = data.withUnsafeBytes { raw in
                Result { () throws(WebImageError) in try WebPHeader.parse(raw) }
            }
            s.header = try parsed.get()
            if let header = s.header {
                try options.checkPixelLimit(width: header.width, height: header.height)
            }
        }
        guard let header = s.header, !header.isAnimated else { return false }
        // Orientation is not known before the EXIF chunk at the end; plan for upright.
        s.targetSize = WebPHeader.decodeSize(stored: header.size, orientation: .up, options: options)
        s.decodeSize = WebPHeader.loadSize(stored: header.size, target: s.targetSize)
        Self.release(&s)
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        s.config = config
        guard WebPInitDecoderConfig(config) != 0 else {
            throw .badImageData("libwebp rejected its decoder configuration")
        }
        WebPCoder.configure(&config.pointee, decodeSize: s.decodeSize, storedSize: header.size)
        guard let decoder = WebPIDecode(nil, 0, config) else {
            throw .badImageData("libwebp could not create an incremental decoder")
        }
        s.decoder = decoder
        return true
    }

    /// Feeds libwebp the bytes it has not seen yet.
    private func append(_ s: inout State, _ data: Data) {
        guard let decoder = s.decoder, data.count > s.appended, s.status == VP8_STATUS_SUSPENDED else { return }
        s.status = data.withUnsafeBytes { raw in
            let new = UnsafeRawBufferPointer(rebasing: raw[s.appended...])
            return WebPIAppend(decoder, new.baseAddress?.assumingMemoryBound(to: UInt8.self), new.count)
        }
        s.appended = data.count
    }

    /// The rows decoded so far, transparent below; `nil` before the first row.
    private func partialImage(_ s: inout State, _ data: Data) -> DecodedImage? {
        guard var pixels = decodedPixels(s, partial: true) else { return nil }
        convertColor(&pixels, &s, data)
        return DecodedImage(pixels: pixels, format: .webp, scale: options.scale, isIncremental: true)
    }

    /// Converts to sRGB from the `ICCP` profile as the one-shot decoder does (the chunk
    /// precedes the image data, so partial images get it too).
    private func convertColor(_ pixels: inout PixelBuffer, _ s: inout State, _ data: Data) {
        guard let header = s.header else { return }
        if !s.colorIsRead {
            s.color = data.withUnsafeBytes { WebPCoder.colorSource(in: $0, header: header, options: options) }
            s.colorIsRead = true
        }
        ColorConverter.convertToSRGB(&pixels, from: s.color, options: options)
    }

    /// The finished image, oriented as a one-shot decode would be.
    private func finalImage(_ s: inout State, _ data: Data) throws(WebImageError) -> DecodedImage {
        if data.withUnsafeBytes({ WebPHeader.isShorterThanDeclared($0) }) { return try oneShot(data) }
        let orientation = (s.header?.hasEXIF ?? false)
            ? data.withUnsafeBytes { WebPHeader.orientation(in: $0) } : .up
        let size = s.header.map { WebPHeader.decodeSize(stored: $0.size, orientation: orientation, options: options) }
        // A rotating orientation can change the thumbnail size planned for upright.
        guard size == s.targetSize, var pixels = decodedPixels(s, partial: false) else {
            return try oneShot(data)
        }
        convertColor(&pixels, &s, data)
        if options.applyOrientation { pixels = pixels.oriented(orientation) }
        return DecodedImage(pixels: pixels, format: .webp, scale: options.scale, orientation: orientation)
    }

    /// libwebp's output rows at the target size (as the one-shot decoder resamples them);
    /// rows not decoded yet are transparent.
    private func decodedPixels(_ s: State, partial: Bool) -> PixelBuffer? {
        guard let pixels = outputRows(s, partial: partial) else { return nil }
        guard s.decodeSize != s.targetSize else { return pixels }
        return pixels.resampled(width: s.targetSize.width, height: s.targetSize.height)
    }

    /// Copies libwebp's output rows into a new buffer; rows not decoded yet are transparent.
    private func outputRows(_ s: State, partial: Bool) -> PixelBuffer? {
        guard let decoder = s.decoder else { return nil }
        var lastRow: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let rows = WebPIDecGetRGB(decoder, &lastRow, &width, &height, &stride), lastRow > 0,
              Int(width) == s.decodeSize.width, Int(height) == s.decodeSize.height,
              partial || lastRow == height
        else { return nil }
        let rowBytes = Int(width) * 4, decoded = Int(lastRow)
        return PixelBuffer(width: Int(width), height: Int(height)) { out in
            guard let dst = out.baseAddress else { return }
            for y in 0..<decoded {
                (dst + y * rowBytes).update(from: rows + y * Int(stride), count: rowBytes)
            }
            (dst + decoded * rowBytes).initialize(repeating: 0, count: out.count - decoded * rowBytes)
        }
    }

    private func oneShot(_ data: Data) throws(WebImageError) -> DecodedImage {
        try WebPCoder().decode(data, options: options)
    }

    /// Frees the libwebp decoder and its output buffer.
    private static func release(_ s: inout State) {
        if let decoder = s.decoder { WebPIDelete(decoder) }
        if let config = s.config {
            WebPFreeDecBuffer(&config.pointee.output)
            config.deallocate()
        }
        s.decoder = nil
        s.config = nil
    }
}
