import Foundation
import Synchronization

/// A coder made of coders: asks its members in turn, the last added first.
///
/// `ImageCodersManager.shared` holds the built-in JPEG, PNG/APNG, GIF, WebP, AVIF,
/// HEIC/HEIF and JPEG XL coders.
/// Add your own coder to take over a format (it is asked before the built-ins), or
/// create a new manager with exactly the coders you want. Thread-safe.
///
/// ```swift
/// let image = try ImageCodersManager.shared.decode(data, options: .init(thumbnailPixelSize: .init(width: 400, height: 300)))
/// ```
public final class ImageCodersManager: ProgressiveImageCoder {
    /// The shared manager with the built-in coders.
    public static let shared = ImageCodersManager(coders: ImageCodersManager.builtInCoders)

    /// The built-in coders, in the order they are added (the last is asked first).
    public static var builtInCoders: [any ImageCoder] {
        [
            JPEGCoder(),
            PNGCoder(),
            GIFCoder(),
            WebPCoder(),
            AVIFCoder(),
            HEIFCoder(),
            JXLCoder(),
        ]
    }

    private let members: Mutex<[any ImageCoder]>

    /// Creates a manager asking `coders` from last to first.
    public init(coders: [any ImageCoder] = []) {
        members = Mutex(coders)
    }

    /// The coders in the order they were added; the last is asked first.
    public var coders: [any ImageCoder] {
        get { members.withLock { $0 } }
        set { members.withLock { $0 = newValue } }
    }

    /// Adds a coder that is asked before all present ones.
    public func addCoder(_ coder: any ImageCoder) {
        members.withLock { $0.append(coder) }
    }

    /// Removes every coder of the same type as `coder`.
    public func removeCoder(_ coder: any ImageCoder) {
        let type = ObjectIdentifier(Swift.type(of: coder))
        members.withLock { $0.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type } }
    }

    // MARK: ImageCoder

    public func canDecode(_ data: Data) -> Bool {
        coders.reversed().contains { $0.canDecode(data) }
    }

    /// Decodes with the first member that can; see ``ImageCoder/decode(_:options:)``.
    ///
    /// - Throws: ``WebImageError/Code/badImageData`` for empty or unrecognised data,
    ///   ``WebImageError/Code/unsupportedFormat`` for a recognised format no member decodes.
    public func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        guard !data.isEmpty else { throw WebImageError.badImageData("The data is empty") }
        for coder in coders.reversed() where coder.canDecode(data) {
            return try coder.decode(data, options: options)
        }
        throw Self.noDecoderError(for: data)
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        coders.reversed().contains { $0.canEncode(to: format) }
    }

    public func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        for coder in coders.reversed() where coder.canEncode(to: format) {
            return try coder.encode(image, as: format, options: options)
        }
        throw WebImageError.unsupportedFormat("No coder encodes \(format.rawValue)")
    }

    // MARK: ProgressiveImageCoder

    public func canDecodeIncrementally(_ data: Data) -> Bool {
        coders.reversed().contains { ($0 as? any ProgressiveImageCoder)?.canDecodeIncrementally(data) ?? false }
    }

    /// A decoder that picks the member once enough bytes arrived to recognise the format.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any ProgressiveImageDecoder {
        DeferredProgressiveDecoder(coders: coders, options: options)
    }

    static func noDecoderError(for data: Data) -> WebImageError {
        let format = ImageFormat.detect(data)
        if format == .undefined {
            return .badImageData("The data (\(data.count) bytes) is not a recognised image format")
        }
        return .unsupportedFormat("No decoder for \(format.rawValue) is available")
    }
}

/// Chooses a progressive decoder from the first bytes, then forwards to it.
private final class DeferredProgressiveDecoder: ProgressiveImageDecoder {
    private let coders: [any ImageCoder]
    private let options: ImageDecodeOptions
    private enum Choice {
        case undecided
        case incremental(any ProgressiveImageDecoder)
        case oneShot(any ImageCoder)
    }
    private let choice = Mutex(Choice.undecided)

    init(coders: [any ImageCoder], options: ImageDecodeOptions) {
        self.coders = coders
        self.options = options
    }

    private func decide(_ data: Data, isComplete: Bool) -> Choice {
        for coder in coders.reversed() {
            if let p = coder as? any ProgressiveImageCoder, p.canDecodeIncrementally(data) {
                return .incremental(p.makeIncrementalDecoder(options: options))
            }
            if isComplete, coder.canDecode(data) { return .oneShot(coder) }
        }
        return .undecided
    }

    func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
        var current = choice.withLock { $0 }
        if case .undecided = current {
            // The coders are user code: asked outside the lock; the first decision stored wins.
            let decided = decide(data, isComplete: isComplete)
            current = choice.withLock { choice -> Choice in
                if case .undecided = choice { choice = decided }
                return choice
            }
        }
        switch current {
        case .incremental(let decoder):
            return try decoder.decode(data, isComplete: isComplete)
        case .oneShot(let coder):
            return try coder.decode(data, options: options)
        case .undecided:
            guard isComplete else { return nil }
            if data.isEmpty { throw WebImageError.badImageData("The data is empty") }
            throw ImageCodersManager.noDecoderError(for: data)
        }
    }
}
