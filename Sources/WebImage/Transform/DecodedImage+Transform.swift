extension DecodedImage {
    /// Returns a copy whose every frame's pixels went through `transform`, keeping
    /// durations, loop count, scale, format and orientation.
    ///
    /// Returns `nil` when `transform` returns `nil` for any frame, produces an empty
    /// buffer, or gives frames of different sizes. Runs on the caller's thread, one frame
    /// after another.
    public func mapFrames(_ transform: (PixelBuffer) -> PixelBuffer?) -> DecodedImage? {
        var newFrames: [ImageFrame] = []
        newFrames.reserveCapacity(frames.count)
        for frame in frames {
            guard let pixels = transform(frame.pixels), pixels.width > 0, pixels.height > 0 else { return nil }
            if let first = newFrames.first,
               first.pixels.width != pixels.width || first.pixels.height != pixels.height {
                return nil
            }
            newFrames.append(ImageFrame(pixels: pixels, duration: frame.duration))
        }
        return withFrames(newFrames)
    }
}
