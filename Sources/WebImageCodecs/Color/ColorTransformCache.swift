import Synchronization

/// The colour conversions built so far, by source, shared by every decode.
///
/// ICC profiles are keyed by a hash of their bytes and their length, not by the bytes:
/// a large CMYK profile would otherwise be kept twice. The hash uses Swift's per-process
/// random seed, so a file cannot be crafted to collide with another profile. At most
/// ``capacity`` conversions are kept; the oldest goes first. Building a conversion runs
/// outside the lock, so two threads meeting a new profile may both build it (the second
/// result wins; both are correct).
final class ColorTransformCache: Sendable {
    /// The cache every decoder uses.
    static let shared = ColorTransformCache(capacity: 32)

    private struct Key: Hashable {
        var source: Source
        var input: ColorTransform.Input

        enum Source: Hashable {
            case icc(hash: Int, count: Int)
            case other(ColorSource)
        }
    }

    /// A conversion as the cache holds it: optionals, not the enum. A multi-payload enum
    /// keeps its case in the spare high bits of a payload pointer, and LeakSanitizer's
    /// conservative scan does not recognise such a tagged pointer, so it reported the
    /// cached tables and lcms2 transforms as leaked (`make fuzz` failed on `avif`, `heif`).
    private struct Entry {
        var grayTable: [UInt8]?
        var matrix: MatrixTRCConversion?
        var transform: ColorTransform?

        init(_ conversion: ColorConversion) {
            switch conversion {
            case .none: break
            case .grayTable(let table): grayTable = table
            case .matrix(let matrix): self.matrix = matrix
            case .transform(let transform): self.transform = transform
            }
        }

        var conversion: ColorConversion {
            if let grayTable { return .grayTable(grayTable) }
            if let matrix { return .matrix(matrix) }
            if let transform { return .transform(transform) }
            return .none
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
    }

    let capacity: Int
    private let state = Mutex(State())

    /// A cache holding at most `capacity` (at least 1) conversions.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The conversion for `source` read as `input`, built on first use. Runs on the
    /// caller's thread.
    func conversion(for source: ColorSource, input: ColorTransform.Input) -> ColorConversion {
        let key: Key
        if case .iccProfile(let bytes) = source {
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            key = Key(source: .icc(hash: hasher.finalize(), count: bytes.count), input: input)
        } else {
            key = Key(source: .other(source), input: input)
        }
        if let hit = state.withLock({ $0.entries[key] }) { return hit.conversion }
        let made = ColorConversion.make(for: source, input: input)
        state.withLock { state in
            if state.entries.updateValue(Entry(made), forKey: key) == nil {
                state.order.append(key)
                if state.order.count > capacity {
                    state.entries[state.order.removeFirst()] = nil
                }
            }
        }
        return made
    }

    /// How many conversions are cached.
    var count: Int { state.withLock { $0.entries.count } }
}
