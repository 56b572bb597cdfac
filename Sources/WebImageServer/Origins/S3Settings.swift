import Foundation
import WebImage

/// How `s3://bucket/key` sources are fetched (imgproxy's `IMGPROXY_USE_S3` family,
/// docs/image_sources/amazon_s3.mdx). Off by default.
public struct S3Settings: Sendable, Hashable {
    /// Whether `s3://` sources are served (`--use-s3`, `IMGPROXY_USE_S3`). Default `false`.
    public var isEnabled = false
    /// An S3-compatible store's base URL (`--s3-endpoint`, `IMGPROXY_S3_ENDPOINT`); a value
    /// without a scheme gets `http://`, as in imgproxy. `nil`, the default, is AWS:
    /// `https://s3.{region}.amazonaws.com`.
    public var endpoint: URL?
    /// Path-style addressing, `{endpoint}/{bucket}/{key}` (`IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`,
    /// default `true`), else virtual-hosted, `{bucket}.{endpoint host}/{key}`. Applies to a
    /// custom endpoint; on AWS, buckets whose names are DNS labels without dots are
    /// virtual-hosted and others path-style.
    public var usesPathStyle = true
    /// The region signed for (`--s3-region`, `IMGPROXY_S3_REGION`, else `AWS_REGION`).
    /// Default `us-east-1`.
    public var region = "us-east-1"
    /// Buckets served (`IMGPROXY_S3_ALLOWED_BUCKETS`); empty, the default, allows any.
    public var allowedBuckets: Set<String> = []
    /// Buckets never served (`IMGPROXY_S3_DENIED_BUCKETS`), even when also allowed. Default none.
    public var deniedBuckets: Set<String> = []
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; requests are
    /// unsigned (public buckets) without them.
    public var credentials: Credentials?

    /// An access key and its secret, with the session token of temporary credentials.
    public struct Credentials: Sendable, Hashable {
        public var accessKeyID: String
        public var secretAccessKey: String
        public var sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    public init() {}

    /// Whether `bucket` may be read: not denied, and allowed when there is an allow list.
    public func allows(bucket: String) -> Bool {
        !deniedBuckets.contains(bucket) && (allowedBuckets.isEmpty || allowedBuckets.contains(bucket))
    }

    /// `text` as an endpoint URL: `http://` prefixed when it names no scheme; `nil` when
    /// it is not a URL with a host.
    public static func endpoint(_ text: String) -> URL? {
        let full = text.contains("://") ? text : "http://" + text
        guard let url = URL(string: full.hasSuffix("/") ? String(full.dropLast()) : full),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else { return nil }
        return url
    }

    /// The URL of an object, and the path that is signed (encoded once).
    func objectURL(bucket: String, key: String, versionID: String?) -> (url: URL?, path: String, host: String) {
        let encodedKey = SigV4Signer.s3Path(key)
        let base = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")
        let scheme = base?.scheme ?? "https"
        let baseHost = base?.host ?? "s3.amazonaws.com"
        let port = base?.port.map { ":\($0)" } ?? ""
        let basePath = base?.path ?? ""
        let virtualHosted = endpoint == nil ? SigV4Signer.isVirtualHostable(bucket: bucket) : !usesPathStyle
        let host = (virtualHosted ? bucket + "." + baseHost : baseHost) + port
        let path = (basePath == "/" ? "" : basePath) + (virtualHosted ? "" : "/" + SigV4Signer.s3Path(bucket)) + "/" + encodedKey
        let query = versionID.map { "?versionId=" + SigV4Signer.encode($0, keepSlash: false) } ?? ""
        return (URL(string: "\(scheme)://\(host)\(path)\(query)"), path, host)
    }
}
