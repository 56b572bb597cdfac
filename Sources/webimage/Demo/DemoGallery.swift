import Foundation
import WebImage
import WebImageTestOrigin

/// One file the demo origin serves.
struct DemoAsset: Sendable {
    /// The URL path, e.g. `/photo.jpg`.
    var path: String
    /// What the report calls it, e.g. `photo (JPEG)`.
    var title: String
    var body: [UInt8]
    var contentType: String
    /// Sent in this many pieces of the chunked encoding with `pause` between them, so
    /// progressive decoders get to show partial images; 1 sends the body at once.
    var pieces = 1
    var pause = Duration.zero
    /// Wait this long before answering: a slow origin, so that every concurrent load of
    /// the URL is waiting on the one transfer before it completes.
    var delay = Duration.zero

    /// What the origin answers for ``path``.
    var response: TestOrigin.Response {
        let delivery: TestOrigin.Delivery = pieces > 1 ? .chunked(pieces: pieces, pause: pause) : .whole
        return TestOrigin.Response(body: body, contentType: contentType, delay: delay, delivery: delivery)
    }
}

/// The sample gallery: one image of every format the project encodes, made at start-up
/// with the project's own encoders, plus the bundled progressive JPEG.
enum DemoGallery {
    /// The route that always answers 404.
    static let missingPath = "/missing.png"
    /// The progressive JPEG's route; it arrives in pieces.
    static let progressivePath = "/progressive.jpg"
    /// The route the coalescing step loads 50 times at once, used by nothing else.
    static let coalescingPath = "/popular/photo.jpg"
    /// The photo's route.
    static let photoPath = "/photo.jpg"

    /// The first asset served again at ``coalescingPath``, so its request count starts at 0.
    static func coalescingAsset(from assets: [DemoAsset]) -> DemoAsset {
        var asset = assets.first { $0.path == photoPath } ?? assets.first
            ?? DemoAsset(path: "", title: "", body: [], contentType: "application/octet-stream")
        asset.path = coalescingPath
        asset.title = "popular " + asset.title
        asset.delay = .milliseconds(300)
        return asset
    }

    /// Encodes the gallery. Formats without an encoder in `coders` are left out.
    static func make(coders: ImageCodersManager = .shared) throws -> [DemoAsset] {
        var assets: [DemoAsset] = []
        func add(_ path: String, _ title: String, _ image: DecodedImage?, _ format: ImageFormat,
                 _ options: ImageEncodeOptions = ImageEncodeOptions()) throws {
            guard let image, coders.canEncode(to: format) else { return }
            let data = try coders.encode(image, as: format, options: options)
            assets.append(DemoAsset(path: path, title: title, body: Array(data), contentType: format.mimeType))
        }
        let photo = DecodedImage(pixels: DemoPictures.landscape(width: 640, height: 427), format: .jpeg)
        try add(photoPath, "photo (JPEG)", photo, .jpeg, ImageEncodeOptions(quality: 0.8))
        assets.append(DemoAsset(
            path: progressivePath, title: "progressive JPEG", body: Array(DemoProgressiveJPEG.data),
            contentType: ImageFormat.jpeg.mimeType, pieces: 16, pause: .milliseconds(40)))
        let badge = DecodedImage(pixels: DemoPictures.badge(size: 96), format: .png)
        try add("/badge.png", "PNG with alpha", badge, .png)
        try add("/spinner.gif", "animated GIF", DemoPictures.spinner(size: 48, count: 12, format: .gif), .gif)
        try add("/spinner.webp", "animated WebP", DemoPictures.spinner(size: 48, count: 12, format: .webp), .webp,
                ImageEncodeOptions(quality: 0.8))
        let small = DecodedImage(pixels: DemoPictures.landscape(width: 160, height: 107), format: .webp)
        try add("/lossless.webp", "lossless WebP", small, .webp, ImageEncodeOptions(lossless: true))
        return assets
    }
}
