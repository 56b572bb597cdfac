import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

/// A target whose setter is slow, which widens the window between a load's "is this
/// still current?" check and its write.
private final class SlowTarget: WebImageTarget {
    private let current = Mutex<DecodedImage?>(nil)
    let webImageState = WebImageTargetState()
    var image: DecodedImage? {
        get { current.withLock { $0 } }
        set {
            Thread.sleep(forTimeInterval: 0.002)
            current.withLock { $0 = newValue }
        }
    }
}

@Suite("WebImageTargetState: the check and the set are one step", .timeLimit(.minutes(1)))
struct WebImageTargetStateTests {
    private static func image(_ width: Int) -> DecodedImage {
        DecodedImage(pixels: PixelBuffer(width: width, height: 1), format: .png)
    }

    @Test("a superseded generation cannot set its image")
    func staleGenerationRefused() {
        let target = HeadlessImageTarget()
        let state = target.webImageState
        let key = WebImageTargetState.defaultOperationKey
        let (old, _) = state.begin(key: key, url: nil, replacing: true)
        let (new, _) = state.begin(key: key, url: nil, replacing: true)
        #expect(state.apply(Self.image(2), to: target, key: key, id: new))
        #expect(!state.apply(Self.image(1), to: target, key: key, id: old))
        #expect(target.image?.width == 2)
    }

    @Test("a stale load racing a newer one never leaves its image behind the newer one")
    func racingWritersConverge() async {
        let key = WebImageTargetState.defaultOperationKey
        for round in 0..<40 {
            let target = SlowTarget()
            let state = target.webImageState
            let (stale, _) = state.begin(key: key, url: nil, replacing: false)
            let started = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            // The stale load passes its check just before the newer load begins.
            DispatchQueue.global().async {
                started.signal()
                state.apply(Self.image(1), to: target, key: key, id: stale)
                done.signal()
            }
            started.wait()
            if round.isMultiple(of: 2) { usleep(500) }
            let (fresh, _) = state.begin(key: key, url: nil, replacing: false)
            #expect(state.apply(Self.image(2), to: target, key: key, id: fresh))
            done.wait()
            #expect(target.image?.width == 2, "round \(round): the newer image is the one shown")
        }
    }
}
