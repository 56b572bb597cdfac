import CJPEGShim
import Foundation

/// One libjpeg compressor of the shim (`wi_jenc_*`), destroyed with its owner: the RGB
/// encode (``JPEGCoder``) and the planar one (``JPEGPlanarTranscoder``) share its checks
/// and its finish. Used on one thread at a time; blocks it while libjpeg works.
final class JPEGEncoderHandle {
    let encoder: OpaquePointer

    init() throws(WebImageError) {
        guard let encoder = wi_jenc_create() else {
            throw WebImageError(.encodingFailed, "Could not create a JPEG encoder (out of memory)")
        }
        self.encoder = encoder
    }

    deinit { wi_jenc_destroy(encoder) }

    /// libjpeg's quality (0–100) for `options`' 0–1 quality.
    static func quality(_ options: ImageEncodeOptions) -> Int32 {
        Int32((min(max(options.quality, 0), 1) * 100).rounded())
    }

    /// Turns a failed shim call into `encodingFailed` with libjpeg's message.
    func check(_ status: wi_jpeg_status) throws(WebImageError) {
        guard status == WI_JPEG_OK else {
            throw WebImageError(.encodingFailed, "JPEG encoding failed: \(String(cString: wi_jenc_message(encoder)))")
        }
    }

    /// Ends the file and copies it out.
    func finish() throws(WebImageError) -> Data {
        var bytes: UnsafePointer<UInt8>?
        var count = 0
        try check(wi_jenc_finish(encoder, &bytes, &count))
        guard let bytes, count > 0 else { throw WebImageError(.encodingFailed, "libjpeg produced no data") }
        return Data(bytes: bytes, count: count)
    }
}
