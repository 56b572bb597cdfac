import WebImageCodecs

/// imgproxy's result-size arithmetic as a public function: the size a request's options
/// give for a source of a given size, as `ProcessingPlan` computes it for renders. Pure
/// arithmetic on the caller's thread; saturating, so any URL's values give a size (which
/// the render then checks against its limits).
public enum ProxyGeometry {
    /// The size of the result `options` make of a `source`-sized image.
    ///
    /// - Parameters:
    ///   - source: the source's size as the proxy sees it before the options: upright (its
    ///     EXIF orientation applied), or as stored when the request turns `auto_rotate` off.
    ///     The request's own `rotate` is applied here.
    ///   - options: the request's processing options, as ``ProxyURL`` parses them.
    ///   - maxResultDimension: the server's `IMGPROXY_MAX_RESULT_DIMENSION` (0: none); the
    ///     URL's `max_result_dimension` wins.
    public static func outputSize(source: PixelSize, options: ProcessingOptions, maxResultDimension: Int = 0) -> PixelSize {
        ProcessingPlan(source: ProcessingPlan.rotated(source, by: options.rotate), options: options,
                       maxResultDimension: maxResultDimension).outputSize(options)
    }
}
