/// How urgent a load is: queued downloads start highest first, then in the
/// downloader's ``DownloaderConfig/executionOrder``.
///
/// Set it with ``WebImageOptions/lowPriority`` / ``WebImageOptions/highPriority``
/// when a load starts, or change it while the load is queued or running through
/// ``ImageLoadToken/priority`` or ``ImageTask/priority``. A transfer shared by several
/// callers runs at the highest priority among them.
public enum ImageLoadPriority: Int, Comparable, Sendable, CaseIterable {
    case veryLow = -2, low = -1, normal = 0, high = 1, veryHigh = 2

    public static func < (lhs: ImageLoadPriority, rhs: ImageLoadPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
