import CPNGShim
import Foundation
import Synchronization

/// Decodes a PNG while it downloads, with libpng's progressive reader.
///
/// Each call feeds the bytes that arrived since the last one. Partial images show the
/// rows decoded so far, with the rest transparent; an interlaced image sharpens pass by
/// pass (each pixel fills the block it stands for until later passes arrive). An APNG
/// shows its first frame while loading, or nothing when its first frame is not the
/// default image. With all data the result equals ``PNGCoder/decode(_:options:)``.
///
/// Calls may come from any thread, one at a time; the state sits behind a mutex.
public final class PNGIncrementalDecoder: ProgressiveImageDecoder {
    private let options: ImageDecodeOptions
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var reader: OpaquePointer?
        /// Bytes of the data already given to the reader.
        var fed = 0
        var pixels: UnsafeMutableBufferPointer<UInt8>?
        var width = 0
        var height = 0
        var finished = false
        var failure: WebImageError?

        deinit {
            if let reader { cpng_push_destroy(reader) }
            pixels?.deallocate()
        }
    }

    /// A decoder for one transfer, decoding with `options` (thumbnail size, limits, orientation).
    public init(options: ImageDecodeOptions = ImageDecodeOptions()) {
        self.options = options
    }

    /// See ``ProgressiveImageDecoder/decode(_:isComplete:)``.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` once the data is known to be corrupt,
    ///   ``WebImageError/Code/imageTooLarge`` once the header exceeds the pixel limit.
    public func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
        try state.withLock { state -> DecodedImage? in
            if isComplete { return try final(data, &state) }
            if let failure = state.failure { throw failure }
            do {
                return try partial(data, &state)
            } catch let error as WebImageError {
                state.failure = error
                throw error
            }
        }
    }

    /// The finished image: from the progressive reader's buffer when it read to `IEND`,
    /// otherwise (an animation, or data given all at once) a one-shot decode.
    private func final(_ data: Data, _ state: inout State) throws -> DecodedImage {
        // The progressive reader only knows the default image; animations decode in one go.
        let animated = data.withUnsafeBytes { ImageFormat.detect($0) } == .apng
        if !animated, state.failure == nil, !state.finished, state.reader != nil {
            _ = try? feed(data, &state)
        }
        let chunks = data.withUnsafeBytes { PNGChunk.scan($0).chunks }
        guard state.finished, !animated, let image = snapshot(data, chunks: chunks, state, isIncremental: false) else {
            return try PNGCoder().decode(data, options: options)
        }
        return image
    }

    private func partial(_ data: Data, _ state: inout State) throws -> DecodedImage? {
        try feed(data, &state)
        guard let reader = state.reader, cpng_push_rows_done(reader) > 0 else { return nil }
        let chunks = data.withUnsafeBytes { PNGChunk.scan($0).chunks }
        // An APNG whose default image is not a frame: nothing to show until the end.
        if chunks.contains(where: { $0.type == PNGChunk.actl }),
           let first = chunks.first(where: { $0.type == PNGChunk.idat || $0.type == PNGChunk.fctl }),
           first.type == PNGChunk.idat {
            return nil
        }
        return snapshot(data, chunks: chunks, state, isIncremental: true)
    }

    /// Gives the reader the bytes it has not seen; allocates the pixels once the header is in.
    private func feed(_ data: Data, _ state: inout State) throws {
        if state.reader == nil {
            guard let reader = cpng_push_create() else { throw WebImageError.badImageData("PNG: out of memory") }
            state.reader = reader
        }
        guard let reader = state.reader, !state.finished, data.count > state.fed else { return }
        var status = data.withUnsafeBytes { p -> Int32 in
            let fresh = UnsafeRawBufferPointer(rebasing: p[state.fed...])
            return cpng_push_feed(reader, fresh.baseAddress?.assumingMemoryBound(to: UInt8.self), fresh.count)
        }
        state.fed = data.count
        if status == CPNG_HEADER_READY {
            var info = cpng_info()
            cpng_push_info(reader, &info)
            let width = Int(info.width), height = Int(info.height)
            try options.checkPixelLimit(width: width, height: height)
            guard let byteCount = PixelBuffer.byteCount(width: width, height: height) else {
                throw WebImageError.imageTooLarge("PNG: \(width)x\(height) does not fit in memory")
            }
            let pixels = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: byteCount)
            pixels.initialize(repeating: 0)
            state.pixels = pixels
            state.width = width
            state.height = height
            cpng_push_set_output(reader, pixels.baseAddress)
            // The reader kept the bytes after the header; let it go on with them.
            status = cpng_push_feed(reader, nil, 0)
        }
        if status == CPNG_ERROR {
            let message = String(cString: cpng_push_message(reader))
            throw WebImageError.badImageData("PNG: " + (message.isEmpty ? "the image cannot be decoded" : message))
        }
        if status == CPNG_DONE { state.finished = true }
    }

    private func snapshot(_ data: Data, chunks: [PNGChunk], _ state: borrowing State, isIncremental: Bool) -> DecodedImage? {
        guard let pixels = state.pixels,
              let buffer = PixelBuffer(width: state.width, height: state.height, bytes: Array(pixels))
        else { return nil }
        // Colour as the one-shot decoder converts it, so the last image equals its result.
        let (orientation, color) = data.withUnsafeBytes { p in
            (PNGCoder.orientation(in: p, chunks: chunks), PNGCoder.colorSource(in: p, chunks: chunks, options: options))
        }
        let animated = chunks.contains { $0.type == PNGChunk.actl }
        return DecodedImage(
            pixels: PNGCoder.finish(buffer, orientation: orientation, options: options, color: color),
            format: animated ? .apng : .png, scale: options.scale, isIncremental: isIncremental, orientation: orientation)
    }
}
