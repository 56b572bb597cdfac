import WebImageCodecs

/// What the codecs count themselves (they depend on no metrics library), in Prometheus'
/// text format: appended to `/metrics` and to `webimage fetch --metrics`.
package enum CodecMetrics {
    /// `webimage_jpeg_scaled_decodes_total`: decodes made by WebImage's scaled baseline
    /// JPEG decoder instead of libjpeg-turbo (`JPEGCoder.scaledDecodeCount`); it stays 0
    /// under `WEBIMAGE_JPEG_SCALED_DECODER=0`.
    package static var prometheusText: String {
        """
        # HELP webimage_jpeg_scaled_decodes_total JPEG decodes made by WebImage's scaled baseline decoder \
        instead of libjpeg-turbo (none under WEBIMAGE_JPEG_SCALED_DECODER=0).
        # TYPE webimage_jpeg_scaled_decodes_total counter
        webimage_jpeg_scaled_decodes_total \(JPEGCoder.scaledDecodeCount)

        """
    }
}
