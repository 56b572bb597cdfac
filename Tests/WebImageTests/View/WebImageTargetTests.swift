import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageCompat

/// A target recording every image it was given, in order.
final class RecordingTarget: WebImageTarget {
    private let images = Mutex<[DecodedImage?]>([])
    let webImageState = WebImageTargetState()

    var image: DecodedImage? {
        get { images.withLock { $0.last ?? nil } }
        set { images.withLock { $0.append(newValue) } }
    }

    var history: [DecodedImage?] { images.withLock { $0 } }
}

/// An indicator counting its calls.
final class CountingIndicator: ImageIndicator {
    let counts = Mutex((start: 0, stop: 0, progress: [Double]()))
    func startAnimating() { counts.withLock { $0.start += 1 } }
    func stopAnimating() { counts.withLock { $0.stop += 1 } }
    func updateProgress(_ progress: Double) { counts.withLock { $0.progress.append(progress) } }
}

@Suite("WebImageTarget: setImage and its rules", .timeLimit(.minutes(1)))
struct WebImageTargetTests {
    let placeholder = DecodedImage(pixels: PixelBuffer(width: 1, height: 1), format: .png)

    @Test("the placeholder and imageURL are set synchronously, then the loaded image")
    func placeholderThenImage() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/a.png", ManagerTestKit.png(width: 12, height: 12))
            let target = HeadlessImageTarget()
            let recorder = ResultRecorder()
            target.setImage(with: url, placeholder: placeholder, manager: f.manager, completed: recorder.record)
            #expect(target.imageURL == url)
            #expect(target.image?.width == 1)
            let results = await recorder.wait(for: 1)
            #expect(results.first?.image?.width == 12)
            #expect(target.image?.width == 12)
            #expect(!target.webImageState.hasOperations)
        }
    }

    @Test("delayPlaceholder: not shown while loading, shown when the load fails")
    func delayPlaceholder() async throws {
        try await ManagerFixture.with { f in
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: f.origin.url("/missing.png"), placeholder: placeholder, options: [.delayPlaceholder],
                            manager: f.manager, completed: recorder.record)
            #expect(target.history.isEmpty)
            #expect(await recorder.wait(for: 1).first?.error != nil)
            #expect(target.history.count == 1)
            #expect(target.image?.width == 1)

            let good = f.serve("/ok.png", ManagerTestKit.png(width: 5, height: 5))
            let second = ResultRecorder()
            target.setImage(with: good, placeholder: placeholder, options: [.delayPlaceholder], manager: f.manager, completed: second.record)
            _ = await second.wait(for: 1)
            #expect(target.history.count == 2, "a successful load never shows the delayed placeholder")
            #expect(target.image?.width == 5)
        }
    }

    @Test("avoidAutoSetImage leaves the image to the completion")
    func avoidAutoSet() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/n.png", ManagerTestKit.png(width: 9, height: 9))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: url, placeholder: placeholder, options: [.avoidAutoSetImage], manager: f.manager, completed: recorder.record)
            #expect(await recorder.wait(for: 1).first?.image?.width == 9)
            #expect(target.history.map { $0?.width } == [1])
        }
    }

    @Test("two targets loading one URL both get the image from one request")
    func twoTargetsOneURL() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/shared.png", ManagerTestKit.png(width: 7, height: 7), delay: .milliseconds(200))
            let targets = [HeadlessImageTarget(), HeadlessImageTarget()]
            let recorders = [ResultRecorder(), ResultRecorder()]
            for (target, recorder) in zip(targets, recorders) {
                target.setImage(with: url, manager: f.manager, completed: recorder.record)
            }
            for recorder in recorders { _ = await recorder.wait(for: 1) }
            #expect(targets.allSatisfy { $0.image?.width == 7 })
            #expect(f.origin.requestCount("/shared.png") == 1)
        }
    }

    /// A 30×30 image served after `delay` and a 3×3 one served at once: a load that
    /// must lose to a later one, and the later one.
    static func slowAndFast(_ f: ManagerFixture, _ slow: String, _ fast: String, delay: Duration) -> (slow: URL, fast: URL) {
        (f.serve(slow, ManagerTestKit.png(width: 30, height: 30), delay: delay), f.serve(fast, ManagerTestKit.png(width: 3, height: 3)))
    }

    @Test("a reused target cancels its old load and never shows the stale image")
    func reuseCancels() async throws {
        try await ManagerFixture.with { f in
            let (slow, fast) = Self.slowAndFast(f, "/old.png", "/new.png", delay: .milliseconds(500))
            let target = RecordingTarget()
            let old = ResultRecorder()
            let new = ResultRecorder()
            target.setImage(with: slow, manager: f.manager, completed: old.record)
            target.setImage(with: fast, manager: f.manager, completed: new.record)
            #expect(target.imageURL == fast)
            #expect(await old.wait(for: 1).first?.error?.code == .cancelled)
            _ = await new.wait(for: 1)
            try await Task.sleep(for: .milliseconds(700))
            #expect(target.image?.width == 3)
            #expect(!target.history.contains { $0?.width == 30 })
        }
    }

    @Test("setImageOperationKey: a load under another key leaves the first running; one under the same key cancels it")
    func operationKeys() async throws {
        try await ManagerFixture.with { f in
            let (slow, fast) = Self.slowAndFast(f, "/key1.png", "/key2.png", delay: .milliseconds(400))
            let target = RecordingTarget()
            var (a, b) = (WebImageContext(), WebImageContext())
            a.setImageOperationKey = "a"
            b.setImageOperationKey = "b"
            #expect(a.setImageOperationKey == "a" && WebImageContext().setImageOperationKey == nil)
            let (first, second, third) = (ResultRecorder(), ResultRecorder(), ResultRecorder())
            target.setImage(with: slow, context: a, manager: f.manager, completed: first.record)
            target.setImage(with: fast, context: b, manager: f.manager, completed: second.record)
            #expect(await second.wait(for: 1).first?.image?.width == 3)
            #expect(first.all.isEmpty, "the load under key a still runs")
            target.setImage(with: fast, context: a, manager: f.manager, completed: third.record)
            #expect(await first.wait(for: 1).first?.error?.code == .cancelled)
            #expect(await third.wait(for: 1).first?.image?.width == 3)
        }
    }

    @Test("with avoidAutoCancelImage the old load finishes but still never overwrites the newer image")
    func reuseWithoutCancel() async throws {
        try await ManagerFixture.with { f in
            let (slow, fast) = Self.slowAndFast(f, "/old2.png", "/new2.png", delay: .milliseconds(400))
            let target = RecordingTarget()
            let old = ResultRecorder()
            let new = ResultRecorder()
            target.setImage(with: slow, options: [.avoidAutoCancelImage], manager: f.manager, completed: old.record)
            target.setImage(with: fast, options: [.avoidAutoCancelImage], manager: f.manager, completed: new.record)
            _ = await new.wait(for: 1)
            #expect(await old.wait(for: 1).first?.image?.width == 30, "the old load was not cancelled")
            #expect(target.image?.width == 3)
            #expect(!target.history.contains { $0?.width == 30 })
        }
    }

    @Test("cancelCurrentImageLoad cancels, keeps the image, stops the indicator")
    func cancelCurrent() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/c.png", ManagerTestKit.png(), delay: .seconds(3))
            let target = HeadlessImageTarget(image: placeholder)
            let indicator = CountingIndicator()
            target.imageIndicator = indicator
            let recorder = ResultRecorder()
            target.setImage(with: url, placeholder: placeholder, manager: f.manager, completed: recorder.record)
            #expect(indicator.counts.withLock { $0.start } == 1)
            // The running load is registered under the default key, and only there.
            #expect(target.webImageState.operation(forKey: WebImageTargetState.defaultOperationKey) != nil)
            #expect(target.webImageState.operation(forKey: "another key") == nil)
            target.cancelCurrentImageLoad()
            #expect(target.webImageState.operation(forKey: WebImageTargetState.defaultOperationKey) == nil)
            #expect(await recorder.wait(for: 1).first?.error?.code == .cancelled)
            #expect(target.image?.width == 1)
            #expect(indicator.counts.withLock { $0.stop } >= 1)
            #expect(!target.webImageState.hasOperations)
        }
    }

    @Test("the indicator starts, sees progress, stops; a nil URL fails with invalidURL")
    func indicatorAndNilURL() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/i.png", ManagerTestKit.png())
            let target = HeadlessImageTarget()
            let indicator = CountingIndicator()
            target.imageIndicator = indicator
            let recorder = ResultRecorder()
            target.setImage(with: url, manager: f.manager, completed: recorder.record)
            _ = await recorder.wait(for: 1)
            let counts = indicator.counts.withLock { $0 }
            #expect(counts.start == 1 && counts.stop == 1)
            #expect(counts.progress.last == 1)

            let failed = ResultRecorder()
            #expect(target.setImage(with: nil, placeholder: placeholder, manager: f.manager, completed: failed.record) == nil)
            #expect(target.imageURL == nil)
            #expect(await failed.wait(for: 1).first?.error?.code == .invalidURL)
            #expect(target.image?.width == 1)
        }
    }

    @Test("a load does not keep its target alive")
    func targetNotRetained() async throws {
        try await ManagerFixture.with { f in
            let url = f.serve("/w.png", ManagerTestKit.png(), delay: .milliseconds(300))
            weak var weakTarget: HeadlessImageTarget?
            let recorder = ResultRecorder()
            do {
                let target = HeadlessImageTarget()
                weakTarget = target
                target.setImage(with: url, manager: f.manager, completed: recorder.record)
            }
            #expect(weakTarget == nil)
            #expect(await recorder.wait(for: 1).count == 1)
        }
    }
}
