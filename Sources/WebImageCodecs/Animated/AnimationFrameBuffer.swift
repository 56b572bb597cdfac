import Synchronization

/// The frames one play of an ``AnimatedImagePlayer`` decodes ahead of time, bounded in
/// bytes.
///
/// Frames are keyed by play position (loop × frame count + index). Decoding runs on a
/// ``DecodeQueue``, one frame at a time and in order, starting at the position the player
/// wants next, while the frames held (ready ones plus the one on screen) fit in
/// `maxBytes`; the frame the player waits for always decodes, so a budget below one frame
/// means "no decoding ahead". Frames the player skips are dropped, and every frame leaving
/// the buffer goes back to the image's ``FrameBufferPool``. Decoding and continuation
/// resumes happen outside the lock.
final class AnimationFrameBuffer: Sendable {
    private let image: AnimatedImage
    private let queue: DecodeQueue
    private let maxBytes: Int
    private let endPosition: Int

    private struct State {
        var ready: [Int: ImageFrame] = [:]
        /// Bytes of ready frames, frames handed out and not given back, and the decode in flight.
        var held = 0
        var wanted = 0
        var nextToDecode = 0
        var inFlight: (position: Int, reserved: Int)?
        var frameBytes: Int
        var waiter: (position: Int, continuation: CheckedContinuation<ImageFrame, any Error>)?
        var failure: (position: Int, error: WebImageError)?
        var isClosed = false
        let frameCount: Int
        let endPosition: Int
        let maxBytes: Int

        /// The next position to decode, reserving its bytes, or `nil` when nothing should start.
        mutating func startNext() -> Int? {
            guard !isClosed, inFlight == nil, failure == nil, nextToDecode < endPosition,
                  nextToDecode < wanted + frameCount else { return nil }
            let isAwaited = waiter?.position == nextToDecode
            guard isAwaited || held == 0 || held + frameBytes <= maxBytes else { return nil }
            let position = nextToDecode
            nextToDecode += 1
            inFlight = (position, frameBytes)
            held += frameBytes
            return position
        }
    }
    private let state: Mutex<State>

    init(image: AnimatedImage, queue: DecodeQueue, maxBytes: Int, endPosition: Int) {
        self.image = image
        self.queue = queue
        self.maxBytes = maxBytes
        self.endPosition = endPosition
        state = Mutex(State(frameBytes: image.info.frameBytes, frameCount: max(1, image.availableFrameCount),
                            endPosition: endPosition, maxBytes: maxBytes))
    }

    /// The frame at play `position`, waiting for its decode when needed. Frames before
    /// `position` are dropped. Hand it back with ``giveBack(_:)`` once shown.
    func take(_ position: Int) async throws -> ImageFrame {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageFrame, any Error>) in
            var dropped: [ImageFrame] = []
            let (immediate, start) = state.withLock { s -> (Result<ImageFrame, any Error>?, Int?) in
                if s.isClosed { return (.failure(WebImageError.cancelled("The player stopped")), nil) }
                for key in s.ready.keys where key < position {
                    if let frame = s.ready.removeValue(forKey: key) {
                        s.held -= frame.pixels.bytes.count
                        dropped.append(frame)
                    }
                }
                s.wanted = max(s.wanted, position)
                if let frame = s.ready.removeValue(forKey: position) { return (.success(frame), s.startNext()) }
                if let failure = s.failure, failure.position <= position { return (.failure(failure.error), nil) }
                if s.nextToDecode < position { s.nextToDecode = position }
                s.waiter = (position, continuation)
                return (nil, s.startNext())
            }
            release(dropped)
            if let immediate { continuation.resume(with: immediate) }
            if let start { launch(start) }
        }
    }

    /// Returns a frame from ``take(_:)`` once it is off screen; its buffer is recycled.
    func giveBack(_ frame: consuming ImageFrame) {
        let bytes = frame.pixels.bytes.count
        let start = state.withLock { s -> Int? in
            s.held -= bytes
            return s.startNext()
        }
        image.noteBuffered(-bytes)
        image.recycle(frame.pixels)
        if let start { launch(start) }
    }

    /// Stops decoding ahead, fails a waiting ``take(_:)`` with `cancelled`, and drops the
    /// ready frames.
    func close() {
        let (waiter, dropped) = state.withLock { s -> (CheckedContinuation<ImageFrame, any Error>?, [ImageFrame]) in
            s.isClosed = true
            let waiter = s.waiter?.continuation
            s.waiter = nil
            let dropped = Array(s.ready.values)
            s.ready.removeAll()
            for frame in dropped { s.held -= frame.pixels.bytes.count }
            return (waiter, dropped)
        }
        release(dropped)
        waiter?.resume(throwing: WebImageError.cancelled("The player stopped"))
    }

    private func release(_ frames: [ImageFrame]) {
        for frame in frames {
            image.noteBuffered(-frame.pixels.bytes.count)
            image.recycle(frame.pixels)
        }
    }

    private func launch(_ position: Int) {
        let image = self.image
        queue.submit { [self] in
            let result: Result<ImageFrame, WebImageError>
            do throws(WebImageError) {
                result = .success(try image.frame(at: position % max(1, image.availableFrameCount)))
            } catch {
                result = .failure(error)
            }
            finish(position, result)
        } cancelled: { [self] in
            // The queue's line is full: the frame fails as a decode would, and nothing more starts.
            finish(position, .failure(.cancelled("The decode queue's line is full")))
        }
    }

    private func finish(_ position: Int, _ result: Result<ImageFrame, WebImageError>) {
        var discard: ImageFrame?
        var resume: (CheckedContinuation<ImageFrame, any Error>, Result<ImageFrame, any Error>)?
        let next = state.withLock { s -> Int? in
            s.held -= s.inFlight?.reserved ?? 0
            s.inFlight = nil
            switch result {
            case .success(let frame):
                let bytes = frame.pixels.bytes.count
                s.frameBytes = bytes
                if s.isClosed || position < s.wanted {
                    discard = frame
                } else if let waiter = s.waiter, waiter.position == position {
                    s.waiter = nil
                    s.held += bytes
                    // Counted while the frame is published, so the release that take,
                    // giveBack or close does for it can only come after.
                    image.noteBuffered(bytes)
                    resume = (waiter.continuation, .success(frame))
                } else {
                    s.ready[position] = frame
                    s.held += bytes
                    image.noteBuffered(bytes)
                }
            case .failure(let error):
                s.failure = (position, error)
                if let waiter = s.waiter, waiter.position >= position {
                    s.waiter = nil
                    resume = (waiter.continuation, .failure(error))
                }
            }
            return s.startNext()
        }
        if let discard { image.recycle(discard.pixels) }
        if let (continuation, value) = resume { continuation.resume(with: value) }
        if let next { launch(next) }
    }
}
