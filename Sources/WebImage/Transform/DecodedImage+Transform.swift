

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

// MARK: - Transforming a lazy image

extension DecodedImage {
    /// This image transformed the way ``WebImageOptions/transformAnimatedImage`` asks: a
    /// lazy animation frame by frame as frames are decoded, anything else whole.
    ///
    /// For a lazy image (``animation`` set) the poster is transformed now, on the caller's
    /// thread, and the result's animation transforms every other frame when it is asked
    /// for, on that caller's thread (``WebImageCodecs/DecodeQueue`` for an ``WebImageCodecs/AnimatedImagePlayer``): each
    /// frame goes through `transformer` as a still image of its own, keeping its duration.
    /// A frame the transformer fails on, or gives another size than the poster's, throws
    /// ``WebImageCodecs/WebImageError/Code/badImageData`` when asked for.
    ///
    /// - Returns: `nil` when `transformer` fails (on the poster, for a lazy image).
    func transformedFrameByFrame(by transformer: any ImageTransformer, forKey key: String) -> DecodedImage? {
        guard let animation else { return transformer.transform(self, forKey: key) }
        let (format, scale, orientation) = (self.format, self.scale, self.orientation)
        let transformFrame: @Sendable (ImageFrame) -> ImageFrame? = { frame in
            let still = DecodedImage(pixels: frame.pixels, format: format, scale: scale, orientation: orientation)
            guard let output = transformer.transform(still, forKey: key) else { return nil }
            return ImageFrame(pixels: output.pixels, duration: frame.duration)
        }
        guard let poster = transformFrame(frames[0]) else { return nil }
        let size = PixelSize(width: poster.pixels.width, height: poster.pixels.height)
        let frames = animation.transformed(key: transformer.transformerKey) { frame, _ in
            guard let output = transformFrame(frame),
                  output.pixels.width == size.width, output.pixels.height == size.height else { return nil }
            return output
        }
        return DecodedImage(animation: frames, poster: poster)
    }
}
