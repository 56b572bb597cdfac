/// What `webimage-bench` measures. `compare` pairs each mode with a peer on the same inputs.
enum BenchMode: String, CaseIterable {
    /// Full decode of every input file (all frames), via `ImageCodersManager.shared`.
    case decode
    /// Decode every input straight to fit a `--size` box (the library's thumbnail path).
    case thumbnail
    /// Full decode, then `PixelBuffer.resampled` to the thumbnail size: what the
    /// thumbnail path must beat.
    case decodeResize = "decode-resize"
    /// Peer for the memory cache: `--ops` gets from a `Mutex<[String: DecodedImage]>`.
    case dictionaryGet = "dict-get"
    /// Peer for the memory cache: `--ops` sets into a `Mutex<[String: DecodedImage]>`.
    case dictionarySet = "dict-set"
    /// Peer for the disk cache hit: `--ops` open/read()/close of the input file.
    case rawRead = "raw-read"
    /// Memory cache gets and sets (the cache is not merged in this branch yet).
    case memoryCacheGet = "memory-cache-get"
    case memoryCacheSet = "memory-cache-set"
    /// Disk cache hit of a 50 KB entry (not merged yet).
    case diskCacheGet = "disk-cache-get"
    /// Manager load answered from memory (not merged yet).
    case managerMemoryHit = "manager-memory-hit"
    /// Download and decode every URL listed in the input files, `--concurrency` at once,
    /// with a cold cache (not merged yet).
    case download
    /// `--count` concurrent loads of one URL through the manager (not merged yet).
    case coalesce

    /// Why the mode cannot run in this build, or `nil` when it can.
    var unavailableReason: String? {
        switch self {
        case .decode, .thumbnail, .decodeResize, .dictionaryGet, .dictionarySet, .rawRead:
            nil
        case .memoryCacheGet, .memoryCacheSet, .diskCacheGet, .managerMemoryHit, .download, .coalesce:
            "library part not merged yet"
        }
    }
}
