/// What `webimage-bench` measures. `compare` pairs each mode with a peer on the same inputs.
enum BenchMode: String, CaseIterable {
    /// Full decode of every input file (all frames), via `ImageCodersManager.shared`.
    case decode
    /// Decode every input straight to fit a `--size` box (the library's thumbnail path).
    case thumbnail
    /// Full decode, then `PixelBuffer.resampled` to the thumbnail size: what the
    /// thumbnail path must beat.
    case decodeResize = "decode-resize"
    /// Every input decoded once, untimed; each iteration resamples them all to fit a
    /// `--size` box with Lanczos3: the resampler alone, against libvips' and Pillow's.
    case resample
    /// Full decode of the samples as stored: no EXIF orientation, no colour conversion
    /// (what turning costs on top of, and the decode floor raw libjpeg-turbo is held to).
    case decodeStored = "decode-stored"
    /// Peer for the memory cache: `--ops` gets from a `Mutex<[String: DecodedImage]>`.
    case dictionaryGet = "dict-get"
    /// Peer for the memory cache: `--ops` sets into a `Mutex<[String: DecodedImage]>`.
    case dictionarySet = "dict-set"
    /// Peer for the disk cache hit: `--ops` open/read()/close of the input file.
    case rawRead = "raw-read"
    // The modes below measure the cache, loader and manager layers. Each keeps the
    // report shape `compare` reads: `samples` in seconds, `opsPerSample` = operations per sample.

    /// `--ops` memory cache gets over `--threads` threads, the same 1024 keys and image
    /// as ``dictionaryGet``; one sample per iteration.
    case memoryCacheGet = "memory-cache-get"
    /// `--ops` memory cache sets, shaped like ``dictionarySet``.
    case memoryCacheSet = "memory-cache-set"
    /// `--ops` disk cache hits of one entry holding the input file's bytes (about 50 KB).
    case diskCacheGet = "disk-cache-get"
    /// `--ops` manager loads of one URL whose image is already in the memory cache.
    case managerMemoryHit = "manager-memory-hit"
    /// Download and decode every URL listed in the input files (one per line),
    /// through a new `ImageDownloader` allowing `--concurrency` transfers; one sample = the whole list.
    case download
    /// ``download`` with `WebImageOptions.avoidDecodeImage`: the bodies only, no decode
    /// (the transfer curl is compared with).
    case downloadData = "download-data"
    /// The bodies of every URL through AsyncHTTPClient alone, configured as the downloader
    /// configures it: the transport's own floor under ``downloadData``.
    case bareClientData = "bare-client-data"
    /// ``download`` keeping every decoded image until the whole list is in: the floor of
    /// any cache that keeps decoded images (the manager's memory cache keeps them all on
    /// this bench), with none of the manager's own work.
    case downloadKeep = "download-keep"
    /// ``downloadKeep`` also storing each body in a `DiskCache` in a fresh temporary
    /// directory, as the manager's background store does: the floor of a cache that keeps
    /// decoded images and writes the files, so the manager's distance to it is its own work.
    case downloadKeepWrite = "download-keep-write"
    /// Every URL of the input files through a new `ImageManager` (default options, cold
    /// memory and disk cache in a fresh temporary directory, `--concurrency` transfers):
    /// the manager's cost on top of ``download``.
    case managerDownload = "manager-download"
    /// ``managerDownload`` with `cacheMemoryOnly`: the same loads storing nothing on disk,
    /// so its distance to ``downloadKeep`` is the manager's own work, the disk tier's aside.
    case managerDownloadMemory = "manager-download-memory"
    /// `--count` concurrent loads of the one input URL with a cold downloader;
    /// `compare` counts the requests nginx logged meanwhile.
    case coalesce

    // Animations (AnimationWork): frames decoded on demand through `AnimatedImage`.

    /// Each input played once through an `AnimatedImagePlayer` with a clock that never
    /// waits; `opsPerSample` = frames shown. Its peak RSS is the player's memory row.
    case animationPlay = "animation-play"
    /// Every frame of each input once, in order, nothing kept (`AnimatedImage.forEachFrame`).
    case animationFrames = "animation-frames"
    /// Every frame of each input once, in order, each encoded as a PNG in memory (what
    /// `webimage decode --all-frames --out DIR` writes); `pixelsPerSample` = PNG bytes.
    case animationPNG = "animation-png"
    /// Open each input as an `AnimatedImage` and decode its first frame.
    case animationFirstFrame = "animation-first-frame"
    /// Decode each input's first image as a still (`firstFrameOnly`): the baseline of ``animationFirstFrame``.
    case stillFirstFrame = "still-first-frame"
}
