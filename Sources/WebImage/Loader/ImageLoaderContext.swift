import Dispatch
import Foundation

/// Per-request settings a loader needs beyond the options: how to decode, validators
/// for a conditional request, hooks, coders and the queue callbacks run on.
///
/// The manager maps its `WebImageContext` onto this. Every field has a default, so
/// `ImageLoaderContext()` is a plain full-size load with the shared coders.
public struct ImageLoaderContext: Sendable {
    /// Decode options: thumbnail size, scale, first frame only, scale-down limit, pixel
    /// limit. ``WebImageOptions/decodeFirstFrameOnly`` and
    /// ``WebImageOptions/scaleDownLargeImages`` are applied on top.
    public var decodeOptions: ImageDecodeOptions
    /// Validators for a conditional request; sent only with
    /// ``WebImageOptions/useHTTPCache`` or ``WebImageOptions/ignoreCachedResponse``.
    public var validators: HTTPValidators?
    /// Replaces the downloader's ``DownloaderConfig/requestModifier`` for this request.
    public var requestModifier: ImageDownloadRequestModifier?
    /// Replaces the downloader's ``DownloaderConfig/responseModifier`` for this request.
    public var responseModifier: ImageDownloadResponseModifier?
    /// The coders to decode with; `nil` uses the loader's (by default
    /// ``WebImageCodecs/ImageCodersManager/shared``).
    public var coders: (any ImageCoder)?
    /// The queue progress and completion callbacks run on; it should be serial so they
    /// arrive in order. `nil` uses the loader's serial callback queue.
    public var callbackQueue: DispatchQueue?
    /// Replaces the downloader's ``DownloaderConfig/retryPolicy`` for this request (and
    /// for every caller that joins its transfer). Default `nil`, the downloader's.
    public var retryPolicy: RetryPolicy?

    /// The pixel budget ``WebImageOptions/scaleDownLargeImages`` uses when the decode
    /// options set none: 60 MiB of RGBA, as SDWebImage.
    public static let defaultScaleDownLimitBytes = 60 * 1024 * 1024

    /// Creates a context; every argument defaults to the value documented on its property.
    public init(
        decodeOptions: ImageDecodeOptions = ImageDecodeOptions(),
        validators: HTTPValidators? = nil,
        requestModifier: ImageDownloadRequestModifier? = nil,
        responseModifier: ImageDownloadResponseModifier? = nil,
        coders: (any ImageCoder)? = nil,
        callbackQueue: DispatchQueue? = nil,
        retryPolicy: RetryPolicy? = nil
    ) {
        self.retryPolicy = retryPolicy
        self.decodeOptions = decodeOptions
        self.validators = validators
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.coders = coders
        self.callbackQueue = callbackQueue
    }

    /// The decode options after the option flags: first frame only, scale-down limit.
    func effectiveDecodeOptions(_ options: WebImageOptions) -> ImageDecodeOptions {
        var result = decodeOptions
        if options.contains(.decodeFirstFrameOnly) { result.firstFrameOnly = true }
        if options.contains(.scaleDownLargeImages), result.scaleDownLimitBytes == nil {
            result.scaleDownLimitBytes = Self.defaultScaleDownLimitBytes
        }
        return result
    }
}
