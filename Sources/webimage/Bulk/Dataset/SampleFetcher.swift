import Foundation
import NIOHTTP1
import WebImage

/// Gets one sample's bytes for a dataset job, with img2dataset's checks and messages:
/// `data:` and `file:` URLs as urllib loads them, http(s) through the pipeline's bulk preset
/// (stage A without a cache: duplicate URLs in flight share one transfer) over the
/// ``HostGatedFetcher`` (the host gate, the job's retries, `X-Robots-Tag`).
///
/// **Threads.** The transfer runs on the downloader's event loops; this type only awaits it.
struct SampleFetcher: Sendable {
    /// What a successful download gives.
    struct Body: Sendable {
        var data: Data
    }

    let network: HostGatedFetcher
    /// The pipeline's bulk preset over ``network``: stage A, with no cache.
    let pipeline: ImagePipeline<SourcesPreset<SampleFailure>>
    /// `--allow-file-urls`: rows may name local files (`file:`). Off by default for `fetch
    /// --file`: a list from the web must not read this machine's files into a dataset.
    /// `webimage img2dataset` turns it on, as img2dataset reads them (`--allow_file_urls=False`).
    var allowsFileURLs = false
    /// How the refusal names the setting that allows `file:` rows.
    var fileURLSetting = "--allow-file-urls"
    /// The largest body a sample may have, from a file as from the network.
    var maxBytes = DownloaderConfig.default.maxResponseBytes

    init(network: HostGatedFetcher) {
        self.network = network
        pipeline = ImagePipeline(.bulk(
            network, failure: { .download(SampleFetcher.message(for: $0)) },
            waitFailure: { _ in .download(SampleFetcher.message(for: .cancelled())) }))
    }

    /// The statuses the downloader must hand over instead of failing: every final one.
    static let acceptedStatuses = Set(200..<300).union(400..<600)

    /// The sample's bytes, or img2dataset's error message.
    func fetch(_ text: String?) async -> Result<Body, SampleFailure> {
        guard let text else { return .failure(.download("unknown url type: 'None'")) }
        // urllib strips surrounding whitespace; so do we, keeping the text as given for the record.
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // data: and file: load as urllib loads them in img2dataset (file: only when allowed).
        if trimmed.prefix(5).lowercased() == "data:" { return Self.dataURL(trimmed) }
        if trimmed.prefix(5).lowercased() == "file:" { return await fileURL(trimmed) }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            return .failure(.download("unknown url type: '\(trimmed)'"))
        }
        do throws(SampleFailure) {
            return .success(Body(data: try await pipeline.original(for: url).data))
        } catch {
            return .failure(error)
        }
    }

    /// A `data:` URL's payload (base64 or percent-encoded), or why it is malformed.
    static func dataURL(_ text: String) -> Result<Body, SampleFailure> {
        do throws(WebImageError) {
            return .success(Body(data: try DataURLImageLoader.payload(of: text)))
        } catch {
            return .failure(.download(error.message))
        }
    }

    /// A `file:` URL's bytes, through the library's `file:` fetcher; refused unless allowed.
    private func fileURL(_ text: String) async -> Result<Body, SampleFailure> {
        guard allowsFileURLs else {
            return .failure(.download("file: URLs are not loaded unless \(fileURLSetting) is given: '\(text)'"))
        }
        guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
            return .failure(.download("not a file URL: '\(text)'"))
        }
        do throws(WebImageError) {
            // The library's file: fetcher: read on the blocking I/O pool, regular files only.
            return .success(Body(data: try await FileImageLoader(maxBytes: maxBytes).contents(of: url)))
        } catch {
            return .failure(.download(error.message))
        }
    }

    /// `HTTP Error 404: Not Found`, as Python's urllib words it.
    static func httpMessage(_ code: Int) -> String {
        "HTTP Error \(code): \(HTTPResponseStatus(statusCode: code).reasonPhrase)"
    }

    /// img2dataset's text where it has a fixed one (a timeout is `timed out`), else ours.
    static func message(for error: WebImageError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .invalidDownloadStatusCode: error.httpStatusCode.map(httpMessage) ?? error.message
        default: error.message
        }
    }
}

/// Why a sample failed: img2dataset's two failure statuses, with its message.
enum SampleFailure: Error, Sendable {
    /// `failed_to_download`.
    case download(String)
    /// `failed_to_resize` (decoding, the size filters, encoding).
    case resize(String)

    var message: String {
        switch self {
        case .download(let m), .resize(let m): m
        }
    }

    var status: String {
        switch self {
        case .download: "failed_to_download"
        case .resize: "failed_to_resize"
        }
    }
}
