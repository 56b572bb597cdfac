import Foundation
import Synchronization

/// Decodes a JPEG while it downloads, through libjpeg's suspending input.
///
/// - Baseline (single-scan) files show the rows decoded so far; rows not yet decoded
///   are transparent.
/// - Progressive (multi-scan) files run in libjpeg's buffered-image mode and show a new,
///   sharper full picture each time a scan has completely arrived; at most one output
///   pass runs per call, and files with over 500 scans are refused.
/// - Arithmetic-coded files (rare) give no partial images: libjpeg cannot suspend
///   inside their data.
///
/// Partial images get the same thumbnail size and orientation as the final one. When
/// `isComplete` is `true` the final image is a one-shot ``JPEGCoder`` decode of all the
/// data, so it equals that decode exactly (and fails the same way for truncated data).
/// Partial images always come from libjpeg-turbo: WebImage's scaled baseline decoder
/// (see ``JPEGCoder``) takes only complete data, so only that final decode may use it.
/// Calls may come from any thread, one at a time; state sits behind a `Mutex`.
public final class JPEGIncrementalDecoder: ProgressiveImageDecoder {
    private let options: ImageDecodeOptions

    private enum Phase {
        case header
        case starting
        /// Baseline: rows stream into the canvas.
        case rows
        /// Progressive: waiting for the next scan to complete.
        case scans
        /// Progressive: an output pass for `scan` must start.
        case startingOutput(scan: Int)
        /// Progressive: an output pass for `scan` is under way.
        case output(scan: Int)
        /// Progressive: the output pass is written but libjpeg must read on to end it.
        case endingOutput
        /// Nothing more to show until the data is complete.
        case idle
    }

    private struct State {
        var jpeg: JPEGDecompressor?
        var phase = Phase.header
        var plan: JPEGDecodePlan?
        var canvas: PixelBuffer?
        var rowsDone = 0
        var shownScan = 0
        var latest: DecodedImage?
        var failure: WebImageError?
    }

    private let state = Mutex(State())

    /// A decoder for one transfer, producing images as ``JPEGCoder`` would with `options`.
    public init(options: ImageDecodeOptions) {
        self.options = options
    }

    /// See ``ProgressiveImageDecoder/decode(_:isComplete:)``.
    public func decode(_ data: Data, isComplete: Bool) throws -> DecodedImage? {
        if isComplete {
            state.withLock { $0.jpeg = nil }
            return try JPEGCoder().decode(data, options: options)
        }
        return try state.withLock { state -> DecodedImage? in
            if let failure = state.failure { throw failure }
            do {
                try data.withUnsafeBytes { bytes in
                    try Self.advance(&state, bytes: bytes, options: options)
                }
            } catch let error as WebImageError {
                // libjpeg cannot continue after an error; later partial calls repeat it.
                state.failure = error
                state.jpeg = nil
                throw error
            }
            return state.latest
        }
    }

    /// Moves libjpeg forward as far as the bytes allow and updates `state.latest`.
    private static func advance(_ state: inout State, bytes: UnsafeRawBufferPointer, options: ImageDecodeOptions) throws(WebImageError) {
        if state.jpeg == nil, case .header = state.phase {
            state.jpeg = try JPEGDecompressor()
        }
        guard let jpeg = state.jpeg else { return }
        jpeg.setInput(bytes, isComplete: false)
        while true {
            switch state.phase {
            case .header:
                guard let header = try jpeg.readHeader() else { return }
                let plan = try JPEGDecodePlan(header: header, orientation: jpeg.exifOrientation(), options: options,
                                              iccProfile: jpeg.iccProfile())
                if header.arithmetic != 0 {
                    // libjpeg's arithmetic decoder cannot wait for data: no partial images.
                    state.jpeg = nil
                    state.phase = .idle
                    return
                }
                let multiScan = header.has_multiple_scans != 0
                let size = try jpeg.configure(scaleDenominator: plan.scaleDenominator, buffered: multiScan)
                state.plan = plan
                // Transparent until decoded, so a partial baseline image shows only its rows.
                state.canvas = PixelBuffer(width: size.width, height: size.height)
                state.phase = .starting
                // -1 marks the single-scan (row by row) path.
                state.shownScan = multiScan ? 0 : -1
            case .starting:
                guard try jpeg.start() else { return }
                state.phase = state.shownScan < 0 ? .rows : .scans
            case .rows:
                let before = state.rowsDone
                let done = try readRows(jpeg, into: &state.canvas)
                state.rowsDone = done
                guard done > before, var canvas = state.canvas.take(), let plan = state.plan else { return }
                plan.convertCMYK(&canvas, rows: before..<done)
                state.canvas = canvas
                state.latest = plan.finish(canvas, isIncremental: true)
                if done == canvas.height { state.phase = .idle }
                return
            case .scans:
                let (completed, _) = try jpeg.consumeInput()
                guard completed > state.shownScan else { return }
                state.phase = .startingOutput(scan: completed)
            case .startingOutput(let scan):
                guard try jpeg.startOutput(scan: scan) else { return }
                state.phase = .output(scan: scan)
            case .output(let scan):
                let done = try readRows(jpeg, into: &state.canvas)
                guard let canvas = state.canvas, done == canvas.height else { return }
                state.shownScan = scan
                state.phase = .endingOutput
                show(&state)
            case .endingOutput:
                guard try jpeg.finishOutput() else { return }
                state.phase = .scans
            case .idle:
                return
            }
        }
    }

    private static func readRows(_ jpeg: JPEGDecompressor, into canvas: inout PixelBuffer?) throws(WebImageError) -> Int {
        guard var pixels = canvas.take() else { return 0 }
        defer { canvas = pixels }
        let stride = pixels.bytesPerRow
        let rows = pixels.bytes.withUnsafeMutableBytes { raw -> Result<Int, WebImageError> in
            guard let base = raw.baseAddress else { return .success(0) }
            return Result { () throws(WebImageError) in try jpeg.readRows(into: base, stride: stride) }
        }
        return try rows.get()
    }

    /// Publishes a finished progressive output pass.
    private static func show(_ state: inout State) {
        guard let plan = state.plan, var picture = state.canvas else { return }
        plan.convertCMYK(&picture, rows: 0..<picture.height)
        state.latest = plan.finish(picture, isIncremental: true)
    }
}
