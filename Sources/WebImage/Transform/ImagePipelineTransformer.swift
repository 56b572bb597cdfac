/// Applies several transformers in order (SDWebImage's `SDImagePipelineTransformer`).
///
/// Key: the members' keys joined with `-`, for example
/// `ImageResizingTransformer(size:200x200,mode:aspectFill)-ImageRoundCornerTransformer(…)`.
/// An empty pipeline has the key `""` and returns the image unchanged.
public struct ImagePipelineTransformer: ImageTransformer {
    /// The transformers, applied first to last.
    public var transformers: [any ImageTransformer]

    /// Creates a pipeline running `transformers` first to last.
    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var transformerKey: String {
        transformers.map(\.transformerKey).joined(separator: "-")
    }

    /// Passes `key` to every member; returns `nil` as soon as one member does.
    public func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        var current = image
        for transformer in transformers {
            guard let next = transformer.transform(current, forKey: key) else { return nil }
            current = next
        }
        return current
    }
}
