import Foundation
import Synchronization

/// An animation kept as its encoded data, decoding frames only when asked.
///
/// Where a ``DecodedImage`` of a 380-frame GIF holds every frame's pixels (236 MB for
/// a 472×298 one), an `AnimatedImage` holds the file and, while frames are decoded, one
/// canvas per decoder plus the frames players buffer. Frames come from ``frame(at:)``
/// (random access; see ``AnimationDecoder``), ``forEachFrame(_:)`` (in order, recycling
/// buffers), or an ``AnimatedImagePlayer``. ``decodedImage()`` still gives every frame
/// at once for callers who want them.
///
/// ```swift
/// if let animation = try AnimatedImage(data: data) {
///     print(animation.info.frameCount, animation.info.loopCount, animation.info.durations)
///     let poster = try animation.frame(at: 0)
/// }
/// ```
///
/// Thread-safe: several threads may ask for frames at once (each gets its own decoder).
/// Every frame call runs on the caller's thread and blocks; call it from ``DecodeQueue``.
/// The memory cache weighs it by ``cost``.
public final class AnimatedImage: Sendable {
    /// The encoded animation.
    public let data: Data
    /// Frame count, loop count, durations and sizes, read without decoding pixels.
    public let info: AnimationInfo
    /// The options frames decode with (thumbnail size, orientation, limits).
    public let options: ImageDecodeOptions
    /// Where decoded frames' buffers go back to be reused.
    public let pool: FrameBufferPool
    /// Names the per-frame transform, if any (a transformer's key); `nil` for none.
    public let transformKey: String?

    /// A transform applied to each frame after it is decoded; `nil` when it cannot apply.
    public typealias FrameTransform = @Sendable (_ frame: ImageFrame, _ index: Int) -> ImageFrame?

    private let coder: any AnimatedImageCoder
    private let transform: FrameTransform?
    private let source: DecoderSource

    /// Reads the animation in `data`; `nil` when `data` is a still image (decode it with
    /// ``ImageCoder/decode(_:options:)``). Reads the structure only. Runs on the caller's thread.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for unreadable data,
    ///   ``WebImageError/Code/imageTooLarge`` when canvas × frames exceeds
    ///   `options.maxPixelCount`, ``WebImageError/Code/unsupportedFormat`` when no coder
    ///   decodes the format.
    public convenience init?(
        data: Data,
        options: ImageDecodeOptions = ImageDecodeOptions(),
        coder: any AnimatedImageCoder = ImageCodersManager.shared
    ) throws(WebImageError) {
        guard let decoder = try coder.makeAnimationDecoder(data, options: options) else { return nil }
        self.init(data: data, options: options, coder: coder, first: decoder, transform: nil, transformKey: nil,
                  pool: FrameBufferPool())
    }

    private init(data: Data, options: ImageDecodeOptions, coder: any AnimatedImageCoder, first: (any AnimationDecoder)?,
                 info: AnimationInfo? = nil, transform: FrameTransform?, transformKey: String?, pool: FrameBufferPool) {
        self.data = data
        self.options = options
        self.coder = coder
        self.info = info ?? first?.info ?? AnimationInfo(
            format: .undefined, canvasSize: PixelSize(width: 0, height: 0), frameSize: PixelSize(width: 0, height: 0),
            loopCount: 0, durations: [])
        self.transform = transform
        self.transformKey = transformKey
        self.pool = pool
        source = DecoderSource(first: first)
    }

    // MARK: Frames

    /// Frame `index`, composed, at ``AnimationInfo/frameSize`` (then transformed, if this
    /// is a transformed animation). Runs on the caller's thread and blocks.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when `index` is out of range or the
    ///   frame's data is damaged (``isTruncated`` turns `true`; earlier frames stay
    ///   available); ``WebImageError/Code/imageTooLarge`` from the decoder's limits.
    public func frame(at index: Int) throws(WebImageError) -> ImageFrame {
        try FrameStorage.check(index, in: info)
        if let damage = source.damage, index >= damage.index { throw damage.error }
        let decoder = try source.checkOut(for: index, data: data, options: options, coder: coder)
        let decoded: ImageFrame
        do throws(WebImageError) {
            decoded = try decoder.frame(at: index, reusing: pool.take(width: info.frameSize.width,
                                                                     height: info.frameSize.height))
        } catch {
            if error.code == .badImageData { source.recordDamage(at: index, error) }
            source.checkIn(decoder)
            throw error
        }
        source.checkIn(decoder)
        guard let transform else { return decoded }
        guard let result = transform(decoded, index) else {
            throw .badImageData("The transform \(transformKey ?? "") produced no image for frame \(index)")
        }
        return result
    }

    /// Decodes every frame in order, handing each to `body` and recycling its buffer
    /// afterwards (keep a copy of `frame.pixels` if you need it later: that is safe, the
    /// pool then leaves it alone). Memory stays at one canvas plus one frame. Runs on the
    /// caller's thread and blocks.
    ///
    /// - Throws: the first frame's error, or `body`'s; frames before it were delivered.
    public func forEachFrame(_ body: (_ index: Int, _ frame: ImageFrame) throws(WebImageError) -> Void) throws(WebImageError) {
        for index in 0..<info.frameCount {
            let frame = try self.frame(at: index)
            try body(index, frame)
            pool.recycle(frame.pixels)
        }
    }

    /// Every frame decoded at once, as the eager decoders return them. Costs the full
    /// frames × size; prefer frames on demand. Runs on the caller's thread and blocks.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` when not even the first frame
    ///   decodes; a damaged later frame ends the image there, flagged ``DecodedImage/isIncremental``.
    public func decodedImage() throws(WebImageError) -> DecodedImage {
        var frames: [ImageFrame] = []
        frames.reserveCapacity(info.frameCount)
        var damaged = false
        for index in 0..<info.frameCount {
            do throws(WebImageError) {
                frames.append(try self.frame(at: index))
            } catch where error.code == .badImageData && !frames.isEmpty {
                damaged = true
                break
            }
        }
        guard let image = DecodedImage(
            frames: frames, format: info.format, loopCount: info.loopCount, scale: options.scale,
            isIncremental: damaged || info.isTruncated, orientation: info.orientation)
        else { throw .badImageData("The animation's frames differ in size") }
        return image
    }

    /// The first frame as a still image (a poster). Runs on the caller's thread and blocks.
    public func posterImage() throws(WebImageError) -> DecodedImage {
        let frame = try self.frame(at: 0)
        return DecodedImage(pixels: frame.pixels, format: info.format, scale: options.scale,
                            orientation: info.orientation)
    }

    /// `true` when the file was cut short or a frame turned out damaged: frames from
    /// ``availableFrameCount`` on are missing.
    public var isTruncated: Bool { info.isTruncated || source.damage != nil }

    /// Frames known to decode: ``AnimationInfo/frameCount`` until a damaged frame was met.
    public var availableFrameCount: Int { source.damage?.index ?? info.frameCount }

    // MARK: Cost

    /// Bytes this animation holds: the encoded data, the frames players currently buffer,
    /// and the pool's spare buffers. What the memory cache weighs it by.
    public var cost: Int { data.count + bufferedBytes + pool.bytes }

    /// Bytes of decoded frames players of this animation hold now.
    public var bufferedBytes: Int { source.buffered }

    /// Players report frames they buffer (positive) and release (negative).
    func noteBuffered(_ delta: Int) {
        source.noteBuffered(delta)
    }

    // MARK: Transforms

    /// This animation with `transform` applied to each frame when it is decoded (after
    /// any transform already applied); `key` names it for cache keys. Nothing is decoded now.
    /// `transform` runs on whatever thread asks for a frame, never under a lock.
    public func transformed(key: String, _ transform: @escaping FrameTransform) -> AnimatedImage {
        let combined: FrameTransform
        if let previous = self.transform {
            combined = { frame, index in previous(frame, index).flatMap { transform($0, index) } }
        } else {
            combined = transform
        }
        let combinedKey = transformKey.map { "\($0)-\(key)" } ?? key
        return AnimatedImage(data: data, options: options, coder: coder, first: nil, info: info, transform: combined,
                             transformKey: combinedKey, pool: FrameBufferPool(capacity: pool.capacity))
    }
}
