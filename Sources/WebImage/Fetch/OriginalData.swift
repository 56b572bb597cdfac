import Foundation

/// A source's encoded bytes as fetched, with what the pipeline keeps of the response: the
/// validators for a later conditional fetch (and the ETag a result derives from), the
/// caching headers, and the freshness the library's cache keeps.
///
/// The value of the pipeline's originals stage (``OriginalStage``). On disk it is the plain
/// bytes, with the response's metadata in the entry's extended data in the form the
/// library's cache keeps its validators (``StoredHTTPMetadata``): so a cached source is
/// the image file itself, as in the library's cache, and either reads the other's entries.
package struct OriginalData: Sendable, DiskStorable {
    package var data: Data
    /// The source's `ETag`, verbatim.
    package var etag: String?
    /// The source's `Last-Modified`, verbatim.
    package var lastModified: String?
    /// The source's freshness, counted from when it was received, as the library's cache
    /// keeps it for ``HTTPCachePolicy/respectHeaders``. `nil` from a fetch: ``OriginalStage``
    /// fills it for a copy it keeps, and renews it on a 304. `nil` too from an entry that
    /// kept none.
    package var freshness: HTTPFreshness?
    /// The source's `Cache-Control` and `Expires`, for `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`.
    package var cacheControl: String?
    package var expires: String?

    package init(
        data: Data, etag: String? = nil, lastModified: String? = nil, freshness: HTTPFreshness? = nil,
        cacheControl: String? = nil, expires: String? = nil
    ) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
        self.freshness = freshness
        self.cacheControl = cacheControl
        self.expires = expires
    }

    /// The body of `http` with the headers kept of it. Its freshness is not computed: most
    /// fetches are not kept (the proxy passes `Cache-Control` through, bulk keeps nothing),
    /// and it costs a parse of the caching headers and dates on every response.
    package init(data: Data, http: HTTPResponseInfo) {
        self.init(data: data, etag: http.headers["ETag"], lastModified: http.headers["Last-Modified"],
                  cacheControl: http.headers["Cache-Control"], expires: http.headers["Expires"])
    }

    /// The bytes are the weight in memory.
    package var memoryCost: Int { data.count }

    /// Whether a cache may keep this copy: not when the source said `no-store`, nor, for a
    /// cache that serves many users (`shared`), `private` (RFC 9111 §5.2.2.7). A qualified
    /// `private="Set-Cookie"` names only header fields, which this copy does not keep.
    package func mayBeKept(shared: Bool) -> Bool {
        guard let cacheControl else { return true }
        let directives = HTTPFreshness.directives(cacheControl)
        if directives.keys.contains("no-store") { return false }
        guard shared, case .some(.none) = directives["private"] else { return true }
        return false
    }

    /// The validator a result's ETag hashes: the source's ETag, else its Last-Modified.
    package var validator: String? { etag ?? lastModified }

    /// This copy as a 304 (`http`) renews it: its validators and freshness as the library
    /// renews a stored entry's (``HTTPValidators/renewed(by:at:shared:)``), and the
    /// `Cache-Control` and `Expires` the 304 sent in place of the stored ones. The bytes are
    /// the same.
    package func renewed(by http: HTTPResponseInfo?, at now: Date = Date(), shared: Bool = false) -> OriginalData {
        let validators = validators.renewed(by: http, at: now, shared: shared)
        var renewed = self
        (renewed.etag, renewed.lastModified, renewed.freshness) = (validators.etag, validators.lastModified, validators.freshness)
        if let cacheControl = http?.headers["Cache-Control"] { renewed.cacheControl = cacheControl }
        if let expires = http?.headers["Expires"] { renewed.expires = expires }
        return renewed
    }

    /// Whether `other` keeps the same metadata (what ``storedEntry`` writes as extended
    /// data), whatever the bytes.
    package func hasSameMetadata(as other: OriginalData) -> Bool {
        validators == other.validators && cacheControl == other.cacheControl && expires == other.expires
    }

    /// What a conditional fetch of this copy sends (``ImageFetching``), with its freshness.
    package var validators: HTTPValidators { HTTPValidators(etag: etag, lastModified: lastModified, freshness: freshness) }

    // MARK: Disk form

    /// The bytes as the file, the metadata (when there is any) as its extended data.
    package var storedEntry: StoredEntry {
        let validators = validators
        let metadata = StoredHTTPMetadata(validators, cacheControl: cacheControl, expires: expires)
        let empty = validators.isEmpty && cacheControl == nil && expires == nil
        return StoredEntry(data: data, extendedData: empty ? nil : metadata.encoded)
    }

    package static var keepsExtendedData: Bool { true }

    /// Reads ``storedEntry``; `nil` when the extended data is not ours, or the bytes are an
    /// entry of the form the proxy's source cache used before (`WISRC1`, validators inline),
    /// which must not be read as an image.
    package init?(storedEntry entry: StoredEntry) {
        guard !entry.data.starts(with: Self.formerMagic) else { return nil }
        guard let extended = entry.extendedData else {
            self.init(data: entry.data)
            return
        }
        guard let metadata = StoredHTTPMetadata(extended) else { return nil }
        let validators = metadata.validators
        self.init(data: entry.data, etag: validators.etag, lastModified: validators.lastModified,
                  freshness: validators.freshness, cacheControl: metadata.cacheControl, expires: metadata.expires)
    }

    /// How entries of the former form begin. The proxy no longer reads their folder
    /// (`sources/`; it reads `originals/`), so this guards only an entry copied across.
    private static let formerMagic = Array("WISRC1\n".utf8)
}
