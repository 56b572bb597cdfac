import WebImageCodecs

/// imgproxy's result-size arithmetic as a public function: the size a request's options
/// give for a source of a given size (in its final orientation), as `ProcessingPlan`
/// computes it for renders. Pure arithmetic on the caller's thread; saturating, so any
/// URL's values give a size (which the render then checks against its limits).
public enum ProxyGeometry {
    public static func outputSize(source: PixelSize, options: ProcessingOptions, maxResultDimension: Int = 0) -> PixelSize {
        ProcessingPlan(source: source, options: options, maxResultDimension: maxResultDimension).outputSize(options)
    }
}
