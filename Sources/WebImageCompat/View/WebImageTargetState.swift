import Foundation
import Synchronization
import WebImage

/// The load state of one ``WebImageTarget``: its running operation per key, the URL
/// it shows, and its indicator. Thread-safe.
///
/// Each `setImage` gets a fresh generation number for its key; only the load whose
/// number is still registered may change the target, so a stale load (superseded, or
/// cancelled) never overwrites a newer image even when it was not cancelled
/// (``WebImage/WebImageOptions/avoidAutoCancelImage``).
///
/// The check and the set are one step: a load commits its image here under the lock
/// (refused when it is no longer current), and then writes the newest committed image
/// into the target, outside the lock, repeating while newer commits arrive (see
/// `apply(_:to:key:id:)`). So the target's setter, which is the conformer's code, never
/// runs under a library lock, and the last write always carries the newest image.
public final class WebImageTargetState: Sendable {
    /// The key `setImage` uses when the context names none.
    public static let defaultOperationKey = "WebImageTarget.image"

    private struct Entry {
        var id: UInt64
        var operation: CombinedOperation?
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var imageURL: URL?
        var indicator: (any ImageIndicator)?
        var nextID: UInt64 = 0
        /// The newest image committed for the target, and a count of commits.
        var committed: DecodedImage?
        var version: UInt64 = 0
    }
    private let state = Mutex(State())

    /// Creates an empty state.
    public init() {}

    /// The URL of the latest `setImage`, set synchronously when it is called.
    public var imageURL: URL? { state.withLock { $0.imageURL } }

    /// The loading indicator; `nil`, the default, shows none.
    public var indicator: (any ImageIndicator)? {
        get { state.withLock { $0.indicator } }
        set { state.withLock { $0.indicator = newValue } }
    }

    /// The running operation under `key`, if any.
    public func operation(forKey key: String) -> CombinedOperation? {
        state.withLock { $0.entries[key]?.operation }
    }

    /// Whether any operation is registered.
    public var hasOperations: Bool { state.withLock { !$0.entries.isEmpty } }

    /// Cancels and forgets the operation under `key`; its late results are ignored.
    public func cancelOperation(forKey key: String) {
        let operation = state.withLock { $0.entries.removeValue(forKey: key)?.operation }
        operation?.cancel()
    }

    // MARK: Load bookkeeping

    /// Starts a generation for `key` and records `url`.
    ///
    /// - Returns: the new generation, and the previous operation when the caller should cancel it.
    func begin(key: String, url: URL?, replacing: Bool) -> (id: UInt64, previous: CombinedOperation?) {
        state.withLock { s in
            s.nextID += 1
            s.imageURL = url
            let previous = s.entries[key]?.operation
            s.entries[key] = Entry(id: s.nextID, operation: nil)
            return (s.nextID, replacing ? previous : nil)
        }
    }

    /// Registers `operation` as generation `id` of `key`, unless it already ended or was superseded.
    func attach(_ operation: CombinedOperation, key: String, id: UInt64) {
        state.withLock { s in
            guard s.entries[key]?.id == id else { return }
            if operation.isFinished {
                s.entries[key] = nil
            } else {
                s.entries[key]?.operation = operation
            }
        }
    }

    /// Whether generation `id` is still the current one of `key`.
    func isCurrent(key: String, id: UInt64) -> Bool {
        state.withLock { $0.entries[key]?.id == id }
    }

    /// Sets `image` on `target` if generation `id` of `key` is still current; `false`
    /// (and nothing set) when it is not.
    ///
    /// After the commit, the newest committed image is written to the target outside
    /// the lock, and written again if another commit happened meanwhile, so two writers
    /// racing cannot leave an older image behind a newer one.
    @discardableResult
    func apply(_ image: DecodedImage?, to target: some WebImageTarget, key: String, id: UInt64) -> Bool {
        let committed = state.withLock { s -> UInt64? in
            guard s.entries[key]?.id == id else { return nil }
            s.committed = image
            s.version &+= 1
            return s.version
        }
        guard var version = committed else { return false }
        var current = image
        while true {
            target.image = current
            let newer = state.withLock { s -> (DecodedImage?, UInt64)? in
                s.version == version ? nil : (s.committed, s.version)
            }
            guard let (image, latest) = newer else { return true }
            (current, version) = (image, latest)
        }
    }

    /// Forgets generation `id` of `key` if it is still current.
    func end(key: String, id: UInt64) {
        state.withLock { s in
            if s.entries[key]?.id == id { s.entries[key] = nil }
        }
    }
}
