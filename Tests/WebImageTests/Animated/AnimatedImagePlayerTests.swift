import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImageCodecs

/// ``AnimatedImagePlayer`` on a clock the test drives: timing, loops, skipping late frames,
/// the buffer bound, pause and resume, cancellation.
@Suite("AnimatedImagePlayer", .timeLimit(.minutes(1)))
struct AnimatedImagePlayerTests {
    struct Shown: Sendable {
        var index: Int
        var loop: Int
        var time: Duration
        var skipped: Int
        var pixels: PixelBuffer
        var buffered: Int
    }

    /// Plays `player` in a task, moving the clock to each sleeper's deadline, until it ends.
    static func drive(_ player: AnimatedImagePlayer, clock: ManualAnimationClock,
                      onShow: @escaping @Sendable (Shown) -> Void = { _ in }) async throws -> [Shown] {
        let shown = Mutex<[Shown]>([])
        let finished = Mutex(false)
        let task = Task {
            defer { finished.withLock { $0 = true } }
            try await player.play { frame in
                let record = Shown(index: frame.index, loop: frame.loop, time: clock.now(), skipped: frame.skippedFrames,
                                   pixels: frame.pixels, buffered: player.image.bufferedBytes)
                shown.withLock { $0.append(record) }
                onShow(record)
            }
        }
        // Until the play ends, move the clock to each sleeper's deadline. A frame still
        // decoding (slow on a loaded machine) just means another turn; after 30 s the play
        // is cancelled, so a stuck player fails the test instead of hanging the suite.
        let start = ContinuousClock.now
        while !finished.withLock({ $0 }) {
            if let deadline = clock.nextDeadline { clock.advance(to: deadline) }
            if ContinuousClock.now - start > .seconds(30) {
                task.cancel()
                Issue.record("the play did not end within 30 s")
                break
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        try await task.value
        return shown.withLock { $0 }
    }

    static func animation(_ path: String) throws -> (AnimatedImage, DecodedImage) {
        let data = try Corpus.data(path)
        return (try #require(try AnimatedImage(data: data)), try ImageCodersManager.shared.decode(data, options: .init()))
    }

    @Test("Each frame shows at its time, in order, for the number of loops asked")
    func timingAndLoops() async throws {
        // Given a 4-frame GIF with variable delays, played twice
        let (animation, eager) = try Self.animation("gif/gif-test-suite/animated_loop_variable_delay.gif")
        let clock = ManualAnimationClock()
        let player = AnimatedImagePlayer(animation, loopCount: 2, clock: clock)
        // When it plays to the end
        let shown = try await Self.drive(player, clock: clock)
        // Then every frame showed once per loop, with the eager decoder's pixels, at the sum
        // of the earlier durations
        #expect(shown.map(\.index) == [0, 1, 2, 3, 0, 1, 2, 3])
        #expect(shown.map(\.loop) == [0, 0, 0, 0, 1, 1, 1, 1])
        var time = Duration.zero
        for (i, frame) in shown.enumerated() {
            #expect(frame.pixels == eager.frames[frame.index].pixels)
            #expect(frame.time == time, "frame \(i)")
            time += .seconds(eager.frames[frame.index].duration)
        }
        #expect(player.statistics == AnimatedImagePlayer.Statistics(shownFrames: 8, skippedFrames: 0))
        // (A decode running ahead when play() returns hands its frame back when it ends.)
        #expect(await ManagerTestKit.eventually { animation.bufferedBytes == 0 }, "every frame went back when the play ended")
    }

    @Test("A frame the decode queue's full line refuses ends the play with cancelled, not a hang")
    func fullDecodeLine() async throws {
        let (animation, _) = try Self.animation("gif/gif-test-suite/animated_loop_variable_delay.gif")
        let queue = DecodeQueue(maxConcurrent: 1, maxPending: 1)
        let gate = DispatchSemaphore(value: 0)
        queue.submit { gate.wait() }   // running
        queue.submit {}                // waiting: the line is full
        defer { gate.signal() }
        let clock = ManualAnimationClock()
        let player = AnimatedImagePlayer(animation, loopCount: 1, decodeQueue: queue, clock: clock)
        let error = await #expect(throws: WebImageError.self) { _ = try await Self.drive(player, clock: clock) }
        #expect(error?.code == .cancelled && error?.message.contains("line is full") == true)
    }

    @Test("The animation's own loop count applies unless overridden")
    func ownLoopCount() async throws {
        // moon_impact.gif loops 10 times; wuffs/animated-red-blue.gif twice.
        let (animation, _) = try Self.animation("gif/wuffs/animated-red-blue.gif")
        #expect(animation.info.loopCount == 2)
        let clock = ManualAnimationClock()
        let shown = try await Self.drive(AnimatedImagePlayer(animation, clock: clock), clock: clock)
        #expect(shown.count == 2 * animation.info.frameCount)
    }

    @Test("A consumer that falls behind skips the frames whose time has passed")
    func skipsLateFrames() async throws {
        // Given a consumer that takes 2.5 frame times to draw frame 0 (frames of 0.1 s)
        let (animation, _) = try Self.animation("gif/sharp/rotating-squares.gif")
        let d = animation.info.durations
        #expect(Set(d.prefix(5)).count == 1)
        let clock = ManualAnimationClock()
        let player = AnimatedImagePlayer(animation, loopCount: 1, clock: clock)
        let shown = try await Self.drive(player, clock: clock) { frame in
            if frame.index == 0 { clock.advance(by: .seconds(d[0] * 2.5)) }
        }
        // Then frame 1 (its time over) is skipped, frame 2 (its time running) shows
        #expect(Array(shown.map(\.index).prefix(3)) == [0, 2, 3])
        #expect(shown[1].skipped == 1)
        #expect(player.statistics.skippedFrames == 1)
        #expect(shown.last?.index == animation.info.frameCount - 1, "the last frame always shows")
    }

    @Test("At most maxBufferSize bytes of frames are held, and the pool reuses buffers")
    func bufferBound() async throws {
        let (animation, _) = try Self.animation("gif/image-gif/moon_impact.gif")
        let frameBytes = animation.info.frameBytes
        for frames in [1, 2, 5] {
            let clock = ManualAnimationClock()
            let player = AnimatedImagePlayer(animation, maxBufferSize: frames * frameBytes, loopCount: 1, clock: clock)
            let shown = try await Self.drive(player, clock: clock)
            #expect(shown.count == animation.info.frameCount)
            #expect(shown.allSatisfy { $0.buffered <= frames * frameBytes }, "\(shown.map(\.buffered))")
        }
        #expect(animation.pool.bytes <= animation.pool.capacity * frameBytes)
        // A frame still being decoded ahead on the decode queue when the player stops goes
        // back to the pool when that decode ends, which may be just after play() returned.
        #expect(await ManagerTestKit.eventually { animation.bufferedBytes == 0 }, "\(animation.bufferedBytes) bytes still buffered")
        #expect(animation.cost == animation.data.count + animation.pool.bytes)
        // A negative budget is one frame at a time.
        #expect(AnimatedImagePlayer(animation, maxBufferSize: -5).maxBufferSize == 0)
        #expect(AnimatedImagePlayer(animation).maxBufferSize == AnimatedImagePlayer.defaultBufferedFrames * frameBytes)
    }

    @Test("Pause holds playback; resume continues with the next frame at once")
    func pauseResume() async throws {
        let (animation, _) = try Self.animation("gif/gif-test-suite/animated_loop.gif")
        let clock = ManualAnimationClock()
        let player = AnimatedImagePlayer(animation, loopCount: 1, clock: clock)
        player.pause()
        #expect(player.isPaused)
        let count = Mutex(0)
        let task = Task { try await player.play { _ in count.withLock { $0 += 1 } } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(count.withLock { $0 } == 0, "nothing shows while paused")
        clock.advance(by: .seconds(10))
        player.resume()
        #expect(await clock.waitForSleeper())
        #expect(count.withLock { $0 } == 1)
        // Pause again mid-play: after the current frame's time, nothing more shows.
        player.pause()
        clock.advance(by: .seconds(10))
        try await Task.sleep(for: .milliseconds(50))
        #expect(count.withLock { $0 } == 1)
        player.resume()
        let finished = Mutex(false)
        let watcher = Task {
            _ = try? await task.value
            finished.withLock { $0 = true }
        }
        while !finished.withLock({ $0 }) {
            if let deadline = clock.nextDeadline { clock.advance(to: deadline) }
            try await Task.sleep(for: .milliseconds(1))
        }
        await watcher.value
        try await task.value
        #expect(count.withLock { $0 } == 4)
    }

    @Test("Cancelling the task stops playback with cancelled")
    func cancel() async throws {
        let (animation, _) = try Self.animation("gif/gif-test-suite/animated_loop.gif")
        let clock = ManualAnimationClock()
        let player = AnimatedImagePlayer(animation, clock: clock)  // loops forever
        let task = Task { try await player.play { _ in } }
        #expect(await clock.waitForSleeper())
        task.cancel()
        await #expect(throws: WebImageError.self) { try await task.value }
        // Paused players stop too.
        player.pause()
        let paused = Task { try await player.play { _ in } }
        try await Task.sleep(for: .milliseconds(20))
        paused.cancel()
        do {
            try await paused.value
            Issue.record("a cancelled play returned normally")
        } catch let error as WebImageError {
            #expect(error.code == .cancelled)
        }
    }

    @Test("Muybridge thumbnails play in real time with the default buffer and the system clock")
    func realClock() async throws {
        // 380 frames; play the first 20 or so in real time with a tiny loop budget.
        let data = try Corpus.data("gif/image-gif/gifplayer-muybridge.gif")
        let animation = try #require(try AnimatedImage(data: data, options: ImageDecodeOptions(thumbnailPixelSize: .init(width: 100, height: 100))))
        #expect(animation.info.frameSize.width <= 100)
        let player = AnimatedImagePlayer(animation, loopCount: 1)
        let task = Task { try await player.play { _ in } }
        // Frames advance on the system clock alone (a loaded machine may take longer than their delays).
        #expect(await ManagerTestKit.eventually(10) { player.statistics.shownFrames > 3 })
        task.cancel()
        _ = try? await task.value
        #expect(await ManagerTestKit.eventually { animation.bufferedBytes == 0 })
    }
}
