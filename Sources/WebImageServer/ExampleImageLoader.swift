import Dispatch
import Foundation
import WebImage
import WebImageCodecs

/// Loads `example://NAME` sources from ``ExampleImages``: the gallery's pictures,
/// decoded on ``DecodeQueue/shared`` like downloaded ones.
final class ExampleImageLoader: ImageLoader {
    let examples: ExampleImages
    let coder: any ImageCoder
    private let callbackQueue = DispatchQueue(label: "WebImageServer.ExampleImageLoader")

    init(examples: ExampleImages, coder: any ImageCoder) {
        self.examples = examples
        self.coder = coder
    }

    func canRequestImage(for url: URL?) -> Bool { url?.scheme?.lowercased() == ExampleImages.scheme }

    func requestImage(
        with url: URL?, options: DownloaderOptions, context: ImageLoaderContext,
        progress: ImageLoaderProgress?, completed: @escaping ImageLoaderCompletion
    ) -> ImageLoadToken {
        let queue = context.callbackQueue ?? callbackQueue
        guard let url, let example = examples.image(for: url) else {
            let status = WebImageError(.invalidDownloadStatusCode, "No such example", httpStatusCode: 404)
            queue.async { completed(.failure(status)) }
            return ImageLoadToken(url: url)
        }
        var decode = context.decodeOptions
        if options.contains(.decodeFirstFrameOnly) { decode.firstFrameOnly = true }
        let coder = context.coders ?? self.coder
        let decodeOptions = decode
        DecodeQueue.shared.submit {
            let result = Result { () throws(WebImageError) -> ImageLoadResponse in
                let image = try coder.decode(example.data, options: decodeOptions)
                return ImageLoadResponse(url: url, image: image, data: example.data, isFinished: true)
            }
            queue.async { completed(result) }
        }
        return ImageLoadToken(url: url)
    }
}
