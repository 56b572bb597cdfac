import Foundation
import Testing
@testable import WebImageCodecs

/// Frame buffers are reused in place, and per-frame transforms apply lazily.
@Suite("Frame buffer pool and transformed animations", .timeLimit(.minutes(1)))
struct FrameBufferPoolTests {
    static func address(_ buffer: PixelBuffer) -> UnsafeRawPointer? {
        buffer.bytes.withUnsafeBytes { $0.baseAddress }
    }

    @Test("Each decoder writes the next frame into the spare it is given, no fresh buffer",
          arguments: ["gif/image-gif/moon_impact.gif", "png/wuffs/animated-red-blue.apng", "webp/image-rs/anim.webp"])
    func reusesStorage(_ path: String) throws {
        let data = try Corpus.data(path)
        let decoder = try #require(try ImageCodersManager.shared.makeAnimationDecoder(data, options: .init()))
        // Without a spare a frame may share the decoder's canvas until the next one is drawn.
        var spare: PixelBuffer? = try decoder.frame(at: 0, reusing: nil).pixels
        _ = try decoder.frame(at: 1, reusing: nil)
        let expected = try ImageCodersManager.shared.decode(data, options: .init()).frames[2]
        let before = Self.address(spare!)
        let third = try decoder.frame(at: 2, reusing: spare.take())
        #expect(Self.address(third.pixels) == before)
        #expect(third == expected)
    }

    @Test("A fresh copy (pages faulted in first) has the source's bytes in storage of its own")
    func freshCopy() {
        // 160 KB: above the size where the copy asks the kernel for its pages up front.
        let source = PixelBuffer(width: 200, height: 200) { out in
            for i in out.indices { out[i] = UInt8(truncatingIfNeeded: i &* 7) }
        }
        var copy = FrameStorage.freshCopy(of: source)
        #expect(copy == source)
        #expect(Self.address(copy) != Self.address(source))
        copy.withUnsafeMutableBytes { $0[0] = ~$0[0] }
        #expect(copy != source)
        #expect(FrameStorage.freshCopy(of: PixelBuffer(width: 3, height: 2)) == PixelBuffer(width: 3, height: 2))
    }

    @Test("An eager GIF decode keeps each frame in storage of its own, as the frames decoded one at a time")
    func eagerFramesOwnStorage() throws {
        let data = try Corpus.data("gif/image-gif/moon_impact.gif")
        let frames = try ImageCodersManager.shared.decode(data, options: .init()).frames
        let addresses = Set(frames.compactMap { Self.address($0.pixels) })
        #expect(frames.count > 2 && addresses.count == frames.count)
        let decoder = try #require(try ImageCodersManager.shared.makeAnimationDecoder(data, options: .init()))
        for (index, frame) in frames.enumerated() {
            #expect(try decoder.frame(at: index, reusing: nil) == frame)
        }
    }

    @Test("The pool keeps at most its capacity, by size, and hands spares back out")
    func pool() {
        let pool = FrameBufferPool(capacity: 2)
        for _ in 0..<4 { pool.recycle(PixelBuffer(width: 10, height: 10)) }
        #expect(pool.bytes == 2 * 400)
        #expect(pool.take(width: 5, height: 5) == nil)
        #expect(pool.take(width: 10, height: 10) != nil)
        #expect(pool.bytes == 400)
        pool.removeAll()
        #expect(pool.bytes == 0)
        #expect(FrameBufferPool(capacity: -3).capacity == 0)
        #expect(FrameBufferPool(capacity: 1_000).capacity == 64)
        let none = FrameBufferPool(capacity: 0)
        none.recycle(PixelBuffer(width: 4, height: 4))
        #expect(none.bytes == 0)
    }

    @Test("A transformed animation applies its transform to each frame when decoded, composed in order")
    func transformed() throws {
        let data = try Corpus.data("gif/wuffs/animated-red-blue.gif")
        let eager = try GIFCoder().decode(data, options: .init())
        let source = try #require(try AnimatedImage(data: data))
        let half = source.transformed(key: "half") { frame, _ in
            var out = frame
            out.pixels = frame.pixels.resampled(width: frame.pixels.width / 2, height: frame.pixels.height / 2)
            return out
        }
        let calls = TransformCounter()
        let counted = half.transformed(key: "count") { frame, index in
            calls.add(index)
            return frame
        }
        #expect(counted.transformKey == "half-count")
        #expect(calls.indexes.isEmpty, "nothing is decoded until asked")
        let frame = try counted.frame(at: 2)
        #expect(calls.indexes == [2])
        #expect(frame.pixels == eager.frames[2].pixels.resampled(width: eager.width / 2, height: eager.height / 2))
        let failing = source.transformed(key: "none") { _, _ in nil }
        #expect(throws: WebImageError.self) { try failing.frame(at: 0) }
    }
}

/// Records which frames a transform saw.
final class TransformCounter: Sendable {
    private let seen = Locked<[Int]>([])
    func add(_ index: Int) { seen.withLock { $0.append(index) } }
    var indexes: [Int] { seen.withLock { $0 } }
}
