import CJPEGShim
import Foundation

extension ImageDecodeOptions {
    /// The environment variable that turns WebImage's scaled JPEG decoder off
    /// (``usesScaledJPEGDecoder``) when set to `0`, `false`, `off` or `no`: for comparison
    /// with libjpeg-turbo, and as an escape hatch.
    public static let scaledJPEGDecoderVariable = "WEBIMAGE_JPEG_SCALED_DECODER"

    /// The default of ``usesScaledJPEGDecoder``: on unless ``scaledJPEGDecoderVariable``
    /// turns it off in this process's environment (read once, at first use).
    public static let scaledJPEGDecoderDefault = scaledJPEGDecoderEnabled(environment: ProcessInfo.processInfo.environment)

    /// Whether `environment` leaves the scaled JPEG decoder on.
    static func scaledJPEGDecoderEnabled(environment: [String: String]) -> Bool {
        guard let value = environment[scaledJPEGDecoderVariable] else { return true }
        return !["0", "false", "off", "no"].contains(value.lowercased())
    }
}

extension JPEGCoder {
    /// How many decodes WebImage's scaled JPEG decoder has made in this process, on every
    /// thread (libjpeg-turbo's decodes not counted): what `/metrics` and `--metrics` show as
    /// `webimage_jpeg_scaled_decodes_total`, so one can see it is in use, or switched off.
    package static var scaledDecodeCount: Int { Int(wi_jpeg_scaled_decode_count()) }
}
