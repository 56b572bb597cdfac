/// Whether cached images follow the HTTP caching headers they were downloaded with.
public enum HTTPCachePolicy: Sendable, Hashable {
    /// SDWebImage's behaviour, the default: a cached image is used until the disk cache
    /// expires it (``ImageCache/Config``'s age and size limits); headers are stored but
    /// not obeyed. `Cache-Control: no-store` is still honoured: such a response is never
    /// written to disk.
    case ignoreHeaders
    /// RFC 9111 freshness: a fresh entry (`max-age`, else `Expires` − `Date`, minus `Age`)
    /// is used with no request; a stale one, and any `no-cache` one, is revalidated with
    /// a conditional request before use (304 refreshes it, no second image);
    /// `stale-while-revalidate` serves the stale image at once and revalidates in the
    /// background (new bytes replace the stored original undecoded, and the next load
    /// decodes them; revalidations of one original share one request); `stale-if-error`
    /// serves it when revalidation fails within that window (no answer, or a 5xx; a 4xx
    /// is the source's answer and fails the load, RFC 5861 §4);
    /// `must-revalidate` forbids both. Entries stored without caching headers stay fresh.
    case respectHeaders
}
