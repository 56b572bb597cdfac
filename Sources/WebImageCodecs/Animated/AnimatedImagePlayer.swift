import Synchronization

/// Plays an ``AnimatedImage`` by the clock: decodes frames ahead on a ``DecodeQueue``,
/// keeps at most ``maxBufferSize`` bytes of them, shows each at its time, skips frames
/// when the consumer falls behind, and loops as the animation (or the caller) says.
///
/// ```swift
/// guard let animation = try AnimatedImage(data: data) else { return }   // a still image
/// let player = AnimatedImagePlayer(animation)
/// try await player.play { frame in
///     draw(frame.pixels)          // frame.index, frame.loop, frame.skippedFrames
/// }
/// ```
///
/// `play` runs on the calling task: it suspends between frames (never blocks), and the
/// `show` closure runs on that task. Decoding runs on the decode queue. Cancelling the
/// task stops playback. ``pause()`` and ``resume()`` may be called from any thread; after a
/// pause, playback continues with the next frame at once. Several `play` calls may run at
/// once, each with its own buffer.
public final class AnimatedImagePlayer: Sendable {
    /// One frame handed to the `show` closure.
    public struct Frame: Sendable {
        /// The frame's index in the animation.
        public var index: Int
        /// Which play of the animation this is, from 0.
        public var loop: Int
        /// The composed pixels (at the animation's frame size, transformed if it is).
        public var pixels: PixelBuffer
        /// How long the frame is meant to show, in seconds.
        public var duration: Double
        /// Frames skipped just before this one because the consumer was late.
        public var skippedFrames: Int
    }

    /// What a player did so far.
    public struct Statistics: Sendable, Hashable {
        /// Frames handed to `show`.
        public var shownFrames = 0
        /// Frames skipped because their time had passed.
        public var skippedFrames = 0
    }

    /// The animation played.
    public let image: AnimatedImage
    /// The most bytes of decoded frames held at once (the frame on screen included); at
    /// least one frame is always held.
    public let maxBufferSize: Int
    /// Plays before `play` returns: 0 is forever.
    public let loopCount: Int
    /// Frames meant to show shorter than this (a zero delay in APNG, say) show this long,
    /// so an animation of zero-length frames cannot spin: 10 ms.
    public static let minimumFrameDuration = 0.01
    /// Frames buffered by default: the one on screen and two decoded ahead.
    public static let defaultBufferedFrames = 3

    private let clock: any AnimationClock
    private let queue: DecodeQueue
    private struct PauseState {
        var isPaused = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }
    private let pauseState = Mutex(PauseState())
    private let stats = Mutex(Statistics())

    /// A player for `image`.
    ///
    /// - Parameters:
    ///   - image: The animation to play.
    ///   - maxBufferSize: Bytes of decoded frames to hold at most; `nil` (the default) is
    ///     ``defaultBufferedFrames`` frames; negative values become 0 (one frame at a time).
    ///   - loopCount: Plays before `play` returns, 0 for forever; `nil` (the default)
    ///     uses the animation's own count; negative values count as `nil`.
    ///   - decodeQueue: Where frames decode; the shared queue by default.
    ///   - clock: The time source; the system clock by default, a manual one in tests.
    public init(_ image: AnimatedImage, maxBufferSize: Int? = nil, loopCount: Int? = nil,
                decodeQueue: DecodeQueue = .shared, clock: any AnimationClock = SystemAnimationClock()) {
        self.image = image
        let frameBytes = image.info.frameBytes
        let (byDefault, overflow) = frameBytes.multipliedReportingOverflow(by: Self.defaultBufferedFrames)
        self.maxBufferSize = max(0, maxBufferSize ?? (overflow ? .max : byDefault))
        if let loopCount, loopCount >= 0 {
            self.loopCount = loopCount
        } else {
            self.loopCount = image.info.loopCount
        }
        self.queue = decodeQueue
        self.clock = clock
    }

    /// Frames shown and skipped so far, over all plays.
    public var statistics: Statistics { stats.withLock { $0 } }

    // MARK: Playing

    /// Plays the animation, calling `show` with each frame at its time, and returns when
    /// the last play ends (never, for a loop count of 0, until the task is cancelled).
    ///
    /// Runs on the calling task; `show` runs there too, and time spent in it counts
    /// against the frame: when a frame's time has passed before it could be shown, it is
    /// skipped (the last frame of the last play is always shown).
    ///
    /// - Throws: ``WebImageError/Code/cancelled`` when the task is cancelled;
    ///   ``WebImageError/Code/badImageData`` when a frame cannot be decoded.
    public func play(_ show: (Frame) async -> Void) async throws(WebImageError) {
        let count = image.availableFrameCount
        guard count > 0 else { throw .badImageData("The animation has no frames") }
        let (total, overflow) = count.multipliedReportingOverflow(by: loopCount)
        let end = loopCount == 0 || overflow ? Int.max : total
        let buffer = AnimationFrameBuffer(image: image, queue: queue, maxBytes: maxBufferSize, endPosition: end)
        defer { buffer.close() }
        do {
            try await withTaskCancellationHandler {
                try await run(buffer, count: count, end: end, show: show)
            } onCancel: {
                buffer.close()
            }
        } catch let error as WebImageError {
            throw error
        } catch {
            throw .cancelled("The animation stopped: \(error)")
        }
    }

    private func run(_ buffer: AnimationFrameBuffer, count: Int, end: Int, show: (Frame) async -> Void) async throws {
        let durations = image.info.durations
        var deadline = clock.now()
        var position = 0
        var skipped = 0
        while position < end {
            if Task.isCancelled { throw WebImageError.cancelled("The animation stopped") }
            if await waitWhilePaused() { deadline = clock.now() }
            let index = position % count
            let frameEnd = deadline + .seconds(max(durations[index], Self.minimumFrameDuration))
            if clock.now() >= frameEnd, position + 1 < end {
                skipped += 1
                stats.withLock { $0.skippedFrames += 1 }
                deadline = frameEnd
                position += 1
                continue
            }
            var frame: ImageFrame? = try await buffer.take(position)
            if let shown = frame {
                await show(Frame(index: index, loop: position / count, pixels: shown.pixels, duration: shown.duration,
                                 skippedFrames: skipped))
            }
            // Hand the buffer back with no other reference left, so the pool reuses it in place.
            if let done = frame.take() { buffer.giveBack(done) }
            stats.withLock { $0.shownFrames += 1 }
            skipped = 0
            try await clock.sleep(until: frameEnd)
            deadline = frameEnd
            position += 1
        }
    }

    // MARK: Pausing

    /// Whether playback is paused.
    public var isPaused: Bool { pauseState.withLock { $0.isPaused } }

    /// Holds playback after the frame on screen; decoding ahead stops once the buffer is full.
    public func pause() {
        pauseState.withLock { $0.isPaused = true }
    }

    /// Continues playback with the next frame at once.
    public func resume() {
        let waiters = pauseState.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.isPaused = false
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits while paused; returns whether it waited.
    private func waitWhilePaused() async -> Bool {
        let id = pauseState.withLock { s -> UInt64? in
            guard s.isPaused else { return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return false }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = pauseState.withLock { s -> Bool in
                    guard s.isPaused, !Task.isCancelled else { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = pauseState.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
        return true
    }
}
