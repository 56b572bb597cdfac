import Foundation

/// What a cache query found.
public struct ImageCacheQueryResult: Sendable {
    /// The image; `nil` on a miss.
    public var image: DecodedImage?
    /// The encoded data the image was decoded from, for a disk hit; `nil` otherwise.
    public var data: Data?
    /// Where the image came from: ``ImageCacheType/memory``, ``ImageCacheType/disk``,
    /// or ``ImageCacheType/none`` for a miss.
    public var cacheType: ImageCacheType

    public init(image: DecodedImage?, data: Data? = nil, cacheType: ImageCacheType) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
    }

    /// Nothing found.
    public static let miss = ImageCacheQueryResult(image: nil, cacheType: .none)
}
