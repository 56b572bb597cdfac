import Foundation
import Synchronization

/// An animation kept as its encoded data, decoding frames only when asked.
///
/// Where a ``DecodedImage`` of a 380-frame GIF holds every frame's pixels (214 MB for
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
/// A lazily loaded ``DecodedImage`` carries one (``DecodedImage/animation``); the memory
/// cache weighs it by ``cacheCost``. Equal means identical: two values are equal when
/// they are the same object.
public final class AnimatedImage: Sendable, Hashable {
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
        self.init(data: data, options: options, coder: coder, first: decoder)
    }

    /// An animation whose structure `first` has already read from `data`.
    convenience init(data: Data, options: ImageDecodeOptions, coder: any AnimatedImageCoder, first: any AnimationDecoder) {
        self.init(data: data, options: options, coder: coder, first: first, transform: nil, transformKey: nil,
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
        let result = transform(decoded, index)
        // The transform made new pixels: the decoded buffer can serve the next frame.
        recycle(decoded.pixels)
        guard let result else {
            throw .badImageData("The transform \(transformKey ?? "") produced no image for frame \(index)")
        }
        return result
    }

    /// Hands a frame's buffer back for reuse once nobody needs its pixels. Only buffers of
    /// ``AnimationInfo/frameSize`` are kept (the size decoders write), which is what bounds
    /// the pool in ``retainedByteLimit``.
    public func recycle(_ pixels: consuming PixelBuffer) {
        let kept = consume pixels
        guard kept.width == info.frameSize.width, kept.height == info.frameSize.height else { return }
        pool.recycle(kept)
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
            recycle(frame.pixels)
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

    /// Bytes this animation holds now: the encoded data, the frames players currently
    /// buffer, and the pool's spare buffers. A live figure (it changes as frames decode);
    /// caches weigh the animation by ``cacheCost`` instead.
    public var cost: Int { data.count + bufferedBytes + pool.bytes }

    /// What a cache entry holding this animation is charged: the encoded data plus
    /// ``retainedByteLimit``. Fixed for the life of the animation, so a cache's total stays
    /// exact when entries come and go; frames a player buffers are the player's (each at
    /// most its ``AnimatedImagePlayer/maxBufferSize``, freed when it stops, and not freed
    /// by evicting the entry), so they are not part of it.
    public var cacheCost: Int { Self.adding(data.count, retainedByteLimit) }

    /// The most this animation keeps between frame requests, besides its data: the idle
    /// decoders (at most 2, each with its own copy of the data and up to two canvases, the
    /// canvas and the one restored by "dispose to previous") and the pool's spare frames
    /// (``FrameBufferPool/capacity`` buffers of ``AnimationInfo/frameBytes``). For
    /// gifplayer-muybridge.gif (357 KB, 472×298): 4.1 MB, where its 380 decoded frames are 214 MB.
    public var retainedByteLimit: Int {
        let canvas = PixelBuffer.byteCount(width: info.canvasSize.width, height: info.canvasSize.height) ?? .max
        let perDecoder = Self.adding(data.count, Self.multiplying(canvas, 2))
        return Self.adding(Self.multiplying(perDecoder, DecoderSource.maxIdle), Self.multiplying(info.frameBytes, pool.capacity))
    }

    private static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    private static func multiplying(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }

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

    // MARK: Identity

    public static func == (lhs: AnimatedImage, rhs: AnimatedImage) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
