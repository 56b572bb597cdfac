import Foundation
import Synchronization

/// The decoders of one ``AnimatedImage``: idle ones with the frame each would produce
/// next, so a caller asking for frame n gets the decoder that stopped at n - 1; the first
/// damaged frame met; and the bytes players buffer.
///
/// Decoders are created and called outside the lock: only the bookkeeping is locked.
final class DecoderSource: Sendable {
    /// The most idle decoders kept (each holds a canvas).
    static let maxIdle = 2

    private struct Idle {
        var decoder: any AnimationDecoder
        var next: Int
    }
    private struct State {
        var idle: [Idle] = []
        var damage: (index: Int, error: WebImageError)?
        var buffered = 0
    }
    private let state: Mutex<State>

    init(first: (any AnimationDecoder)?) {
        var initial = State()
        if let first { initial.idle.append(Idle(decoder: first, next: 0)) }
        state = Mutex(initial)
    }

    /// An idle decoder, preferring the one positioned at `index`; a new one when none is idle.
    func checkOut(for index: Int, data: Data, options: ImageDecodeOptions,
                  coder: any AnimatedImageCoder) throws(WebImageError) -> any AnimationDecoder {
        let found = state.withLock { s -> (any AnimationDecoder)? in
            if let i = s.idle.firstIndex(where: { $0.next == index }) { return s.idle.remove(at: i).decoder }
            if let i = s.idle.indices.min(by: { s.idle[$0].next < s.idle[$1].next }),
               s.idle[i].next <= index {
                return s.idle.remove(at: i).decoder
            }
            return s.idle.popLast()?.decoder
        }
        if let found { return found }
        guard let made = try coder.makeAnimationDecoder(data, options: options) else {
            throw .badImageData("The data is no longer an animation")
        }
        return made
    }

    /// Returns `decoder` to the idle list (or drops it when the list is full).
    func checkIn(_ decoder: any AnimationDecoder) {
        let next = decoder.nextFrameIndex
        state.withLock { s in
            if s.idle.count < Self.maxIdle { s.idle.append(Idle(decoder: decoder, next: next)) }
        }
    }

    var damage: (index: Int, error: WebImageError)? { state.withLock { $0.damage } }

    func recordDamage(at index: Int, _ error: WebImageError) {
        state.withLock { s in
            if s.damage == nil || index < s.damage!.index { s.damage = (index, error) }
        }
    }

    var buffered: Int { state.withLock { $0.buffered } }

    func noteBuffered(_ delta: Int) {
        state.withLock { $0.buffered += delta }
    }
}
