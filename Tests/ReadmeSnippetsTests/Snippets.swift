// The README's ```swift blocks, verbatim, so the compiler checks them. Nothing here runs
// (the URLs are examples); ReadmeSnippetsTests checks that every block is here.
import Dispatch
import Foundation
import WebImage

// MARK: What the snippets assume

let catURL = URL(fileURLWithPath: "/example/cat.jpg")

func show(_ image: DecodedImage) {}

func draw(_ pixels: PixelBuffer) {}

func parsePPM(_ data: Data) throws(WebImageError) -> (width: Int, height: Int, rgb: [UInt8]) {
    throw WebImageError.badImageData("not parsed in this example")
}

func writeRGBA(_ rgb: [UInt8], into out: UnsafeMutableBufferPointer<UInt8>) {
    out.initialize(repeating: 255)
}

// MARK: The snippets

// README block 1
func loadCat(_ manager: ImageManager) async {
    do {
        let response = try await manager.loadImage(with: catURL)   // a URL, not an optional
        let image = response.image                                 // never nil
        print(image.format, image.width, image.height, response.cacheType)  // e.g. jpeg 640 427 none
        print(response.http?.statusCode ?? 0)                      // 200; nil for cache hits
    } catch {
        print(error)    // a WebImageError: "invalidDownloadStatusCode (2001): HTTP 404"
    }
}

// README block 2
func loadWithProgress(_ manager: ImageManager) async throws {
    let task = manager.imageTask(with: catURL, options: [.progressiveLoad])
    task.priority = .high                        // reorders the downloader's queue, also later
    Task { for await progress in task.progress { print(progress.fractionCompleted) } }
    Task { for await preview in task.previews { show(preview.image) } }
    let response = try await task.response       // the final image, or the thrown WebImageError
    show(response.image)
    // task.cancel() stops it; awaiting `response` then throws `cancelled` (2002)
}

// README block 4
func loadThumbnail(_ manager: ImageManager) async throws -> ImageResponse {
    var context = WebImageContext()
    context.thumbnailPixelSize = PixelSize(width: 400, height: 300)   // decode small, cached under its own key
    context.imageTransformer = ImageTransform.pipeline([
        ImageTransform.resize(to: PixelSize(width: 200, height: 200), mode: .aspectFill),
        ImageTransform.roundCorners(radius: 24),
    ])
    return try await manager.loadImage(with: catURL, options: [.scaleDownLargeImages], context: context)
}

// README block 5
func makeManager() -> ImageManager {
    var disk = DiskCache.Config()
    disk.maxDiskAge = 3 * 24 * 60 * 60             // seconds since last use
    disk.maxDiskSize = 500 * 1024 * 1024           // trimmed to half when exceeded
    return ImageManager(
        memoryCache: MemoryCache(totalCostLimit: 64 * 1024 * 1024),   // bytes of decoded pixels kept in memory
        diskCache: DiskCache(directory: URL(fileURLWithPath: "/var/cache/myapp/thumbnails"), config: disk),
        loader: ImageLoadersManager.shared)
}

// README block 7
func runJob(urls: [URL]) async throws {
    try await ImageDownloader.withDownloader { downloader in      // shut down at the end, also on throw
        let manager = ImageManager(diskCache: DiskCache(namespace: "job"), loader: downloader)
        for url in urls { _ = try await manager.loadImage(with: url) }
        await manager.imageCache.flush()   // every queued disk write done: safe to exit or delete the directory
    }
}

// README block 8
func warm(_ manager: ImageManager, _ urls: [URL]) async {
    let prefetcher = ImagePrefetcher(manager: manager)
    prefetcher.maxConcurrentPrefetchCount = 4          // default 3, at low priority
    let result = await prefetcher.prefetch(urls) { finished, skipped, total in   // after each URL, in order
        print("\(finished)/\(total), \(skipped) not cached")
    }
    print(result.finishedCount, result.skippedCount)
    // or, with WebImageCompat: let token = prefetcher.prefetchURLs(urls, progress: nil) { finished, skipped in … }
}

// README block 9
struct PPMCoder: ImageCoder {
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("P6".utf8)) }
    func decode(_ data: Data, options: ImageDecodeOptions) throws(WebImageError) -> DecodedImage {
        let (width, height, rgb) = try parsePPM(data)                      // your parser
        try options.checkPixelLimit(width: width, height: height)           // before allocating
        let pixels = PixelBuffer(width: width, height: height) { out in writeRGBA(rgb, into: out) }
        return DecodedImage(pixels: pixels, format: .undefined)
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: DecodedImage, as format: ImageFormat, options: ImageEncodeOptions) throws(WebImageError) -> Data {
        throw WebImageError.unsupportedFormat("PPMCoder does not encode")
    }
}

// README block 10
struct GrayscaleTransformer: ImageTransformer {
    var transformerKey: String { "GrayscaleTransformer()" }   // appended to the cache key
    func transform(_ image: DecodedImage, forKey key: String) -> DecodedImage? {
        image.mapFrames { frame in
            var pixels = frame
            pixels.withUnsafeMutableBytes { p in
                for i in stride(from: 0, to: p.count, by: 4) {
                    let r = Int(p[i]), g = Int(p[i + 1]), b = Int(p[i + 2])
                    let y = UInt8((r * 77 + g * 150 + b * 29) >> 8)
                    (p[i], p[i + 1], p[i + 2]) = (y, y, y)
                }
            }
            return pixels
        }
    }
}

// README: animations
func play(_ data: Data) async throws {
    if let animation = try AnimatedImage(data: data) {          // nil for a still image
        print(animation.info.frameCount, animation.info.durations)
        try await AnimatedImagePlayer(animation).play { frame in
            draw(frame.pixels)                                 // frame.index, frame.loop
        }
    }
}

// README: lazy animations through the manager
func loadLazily(_ manager: ImageManager, _ url: URL) async throws {
    let response = try await manager.loadImage(with: url, options: [.lazyAnimatedImage])
    show(response.image)                          // the poster; memory cost ≈ the file + a few frames
    guard let animation = response.image.animation else { return }   // nil for a still image
    try await AnimatedImagePlayer(animation, loopCount: 1).play { frame in draw(frame.pixels) }
    let webp = try await DecodeQueue.shared.run { try animation.encoded(as: .webp) }  // frame by frame
    print(animation.info.frameCount, webp.count)
}
