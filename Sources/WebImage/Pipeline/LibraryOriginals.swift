import Foundation
import Logging
import Synchronization

/// The library's originals as stage A (``OriginalStage``) keeps them: the disk entries of
/// a load's ``ImageCaching``, the bytes as the file and the response's metadata as its
/// extended data, the form ``OriginalData`` reads and the library's cache has always
/// written (``StoredHTTPMetadata``), so entries written before stage A read the same.
/// Both are read and written as one entry (``ImageCaching/diskEntry(forKey:)``,
/// ``ImageCaching/storeDiskEntry(_:extendedData:forKey:)``), so the validators a check
/// sends are those of the bytes it keeps.
///
/// It has no memory tier: the cache's memory holds decoded images, not bytes. A new
/// original supersedes what was made from the old one, so storing one removes the
/// `superseded` entries (the image decoded from it under the same key, or the result
/// derived from it) once the new bytes are on disk: the next load makes them again from
/// the new bytes, never from the old. A load that checks its stored copy in the foreground
/// stores new bytes itself, as any download (its hooks and cache serializer decide the disk
/// entry): its adapter keeps only what a 304 renews (`storesNew` false).
///
/// Threads: the cache's `async` requirements, awaited on the stage's run; a store returns
/// when the cache wrote it.
struct ImageCachingOriginals: PipelineStageCache {
    let cache: any ImageCaching
    /// Entries removed after a new original is stored.
    var superseded: [(key: String, cacheType: ImageCacheType)] = []
    /// Whether new bytes are written; renewed metadata always is.
    var storesNew = true

    func memoryValue(forKey key: String) -> OriginalData? { nil }

    func storedValue(forKey key: String) async -> OriginalData? {
        guard let entry = await cache.diskEntry(forKey: key) else { return nil }
        return OriginalData(storedEntry: StoredEntry(data: entry.data, extendedData: entry.extendedData))
    }

    func store(_ value: OriginalData, forKey key: String) async {
        guard storesNew else { return }
        let entry = value.storedEntry
        do throws(WebImageError) {
            try await cache.storeDiskEntry(entry.data, extendedData: entry.extendedData, forKey: key)
        } catch {
            LibraryPreset.logger.error("Storing the original \(key.redactedURLForLog) failed: \(error)")
            return
        }
        for entry in superseded { await cache.removeImage(forKey: entry.key, cacheType: entry.cacheType) }
    }

    func renew(_ value: OriginalData, forKey key: String) async {
        do throws(WebImageError) {
            try await cache.setExtendedData(value.storedEntry.extendedData, forKey: key)
        } catch {
            LibraryPreset.logger.debug("Keeping the metadata of \(key.redactedURLForLog) failed: \(error)")
        }
    }
}

/// One load's fetch through its loader, as stage A asks for it (``ImageFetching``): with
/// the load's options and context (the request modifier, cookies, TLS), heard and steered
/// through its observer (the token's priority and cancellation, progress).
///
/// A loader with a fetcher for the URL (``ImageFetchingLoader``: the downloader) fetches the
/// body undecoded; a status its config accepts is a body, as for the load, and one it
/// refuses is ``FetchOutcome/status(_:)``. Any other loader loads as it always does (told
/// ``WebImageOptions/avoidDecodeImage`` unless a load hears the response); its data is the
/// body and its thrown 304 ``FetchOutcome/notModified(_:)``.
///
/// A load that checks its stored copy in the foreground hears the response a body came in
/// (`heard`): a body it heard is new bytes for it to decode and store; none heard, and the
/// stored copy stood. It fetches under no shared key, so the body it hears is its own.
struct LoaderFetch: ImageFetching {
    let loader: any ImageLoader
    /// `loader` as a loader with fetchers (the downloader), cast once when it is made.
    let fetching: (any ImageFetchingLoader)?
    let options: WebImageOptions
    let context: WebImageContext
    let observer: ImageLoadObserver
    let heard: HeardResponse?

    init(
        loader: any ImageLoader, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
        heard: HeardResponse? = nil
    ) {
        (self.loader, fetching) = (loader, loader as? any ImageFetchingLoader)
        (self.options, self.context, self.observer, self.heard) = (options, context, observer, heard)
    }

    /// The fetch of a loader known to be the downloader (a cold load's): nothing to cast.
    init(downloader: ImageDownloader, options: WebImageOptions, context: WebImageContext, observer: ImageLoadObserver,
         heard: HeardResponse?) {
        (loader, fetching) = (downloader, downloader)
        (self.options, self.context, self.observer, self.heard) = (options, context, observer, heard)
    }

    func fetch(_ url: URL, validators: HTTPValidators?) async throws(WebImageError) -> FetchOutcome {
        var (options, context) = (options, context)
        if let validators, validators.canValidate {
            options.insert(.useHTTPCache)
            context.validators = validators
        }
        if let downloader = fetching?.fetcher(for: url) {
            do throws(WebImageError) {
                let outcome = try await downloader.fetch(url, options: options, context: context, observer: observer)
                if case .body(let original, let http) = outcome {
                    heard?.keep(ImageLoadResponse(
                        url: url, image: nil, data: original.data, isFinished: true, http: http, attempts: http?.attempts ?? 1))
                }
                return outcome
            } catch {
                guard let status = ImageDownloader.refusedStatus(error) else { throw error }
                return status
            }
        }
        if heard == nil { options.insert(.avoidDecodeImage) }
        do throws(WebImageError) {
            let response = try await loader.loadImage(with: url, options: options, context: context, observer: observer)
            heard?.keep(response)
            let data = response.data ?? Data()
            return .body(response.http.map { OriginalData(data: data, http: $0) } ?? OriginalData(data: data), http: response.http)
        } catch where error.code == .cacheNotModified {
            return .notModified((error.underlyingError as? ResponseCause)?.http)
        }
    }
}

/// The response of the body a load's own fetch brought (``LoaderFetch``), kept for the load.
final class HeardResponse: Sendable {
    private let value = Mutex<ImageLoadResponse?>(nil)

    func keep(_ response: ImageLoadResponse) { value.withLock { $0 = response } }

    var response: ImageLoadResponse? { value.withLock { $0 } }
}
