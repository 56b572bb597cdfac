import Synchronization

/// Spare frame buffers, so that decoding frame after frame writes into memory that is
/// already paged in instead of taking fresh pages from the kernel for every frame.
///
/// Frames of a 472×298 GIF are 560 KB each, above the allocator's threshold for handing
/// memory straight back to the kernel, so without a pool every frame costs a fresh
/// mapping and a page fault per 4 KB. ``AnimatedImage`` passes a spare to its decoder
/// (``AnimationDecoder/frame(at:reusing:)``) and players hand frames back once shown.
/// A buffer someone still holds is safe to recycle: pixel buffers are copy-on-write, so
/// writing into a shared one copies it first. Thread-safe.
public final class FrameBufferPool: Sendable {
    /// The most spare buffers kept; more are released to the allocator.
    public let capacity: Int
    private let spares = Mutex<[PixelBuffer]>([])

    /// The range ``capacity`` is clamped to: 0 (no pooling) to 64.
    public static let capacityRange: ClosedRange<Int> = 0...64

    /// A pool keeping at most `capacity` spares, clamped to ``capacityRange``.
    public init(capacity: Int = 2) {
        self.capacity = min(max(capacity, Self.capacityRange.lowerBound), Self.capacityRange.upperBound)
    }

    /// Takes a spare of exactly `width` × `height`, or `nil` when there is none.
    public func take(width: Int, height: Int) -> PixelBuffer? {
        spares.withLock { list -> PixelBuffer? in
            guard let index = list.lastIndex(where: { $0.width == width && $0.height == height }) else { return nil }
            return list.remove(at: index)
        }
    }

    /// Keeps `buffer` as a spare when there is room (an empty buffer is dropped).
    public func recycle(_ buffer: consuming PixelBuffer) {
        guard capacity > 0 else { return }
        let kept = consume buffer
        guard !kept.bytes.isEmpty else { return }
        spares.withLock { list in
            if list.count < capacity { list.append(kept) }
        }
    }

    /// Bytes held by the spares.
    public var bytes: Int {
        spares.withLock { $0.reduce(0) { $0 + $1.bytes.count } }
    }

    /// Drops every spare.
    public func removeAll() {
        spares.withLock { $0.removeAll() }
    }
}
