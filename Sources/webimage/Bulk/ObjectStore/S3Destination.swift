import ArgumentParser
import Foundation
import WebImage

/// Where a dataset job writes when its output folder is `s3://bucket/prefix`: the bucket,
/// the key prefix, the endpoint, the region, the credentials and the multipart part size,
/// all read once from the command line and the environment before any work starts.
///
/// The environment is the AWS SDKs' (and the proxy's `s3://` source's, for the three
/// credential variables):
/// - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (both required), `AWS_SESSION_TOKEN`;
/// - `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`;
/// - `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`: an S3-compatible store (MinIO, moto,
///   Ceph…), addressed path-style (`{endpoint}/{bucket}/{key}`); without either, AWS,
///   virtual-hosted for buckets whose names are DNS labels;
/// - `WEBIMAGE_S3_PART_SIZE`: bytes per multipart part and the size above which a file is
///   sent in parts, 5 MiB…5 GiB (S3's limits), default 8 MiB.
struct S3Destination: Sendable {
    var bucket: String
    /// The key prefix, without leading or trailing `/`; empty for the bucket's root.
    var prefix: String
    /// An S3-compatible store's base URL; `nil` for AWS.
    var endpoint: URL?
    var region: String
    var signer: SigV4Signer
    /// Bytes per part, and the size above which a file goes by multipart upload.
    var partSize: Int

    /// 8 MiB: above S3's 5 MiB least part, and two parts in flight hold 16 MiB.
    static let defaultPartSize = 8 << 20
    /// S3's least part (all but the last).
    static let minimumPartSize = 5 << 20
    /// S3's largest part.
    static let maximumPartSize = 5 << 30
    /// S3's most parts per upload.
    static let maximumParts = 10_000

    /// `s3://bucket/prefix`, for messages.
    var displayURL: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    /// The object key of `name` (`00000.tar`, `00000/000000000.jpg`) under the prefix.
    func key(_ name: String) -> String { prefix.isEmpty ? name : prefix + "/" + name }

    /// The scheme of `output` when it is written as a URL (`s3://…`, `gs://…`); `nil` for a path.
    static func scheme(of output: String) -> String? {
        guard let range = output.range(of: "://") else { return nil }
        let scheme = output[..<range.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    /// The destination `output` names, or `nil` when it is a local folder.
    ///
    /// - Throws: `ValidationError` (a usage error, exit 2, before any work) for a scheme
    ///   other than `s3://` and `file://`, a URL without a bucket, missing credentials, or a
    ///   bad `AWS_ENDPOINT_URL` or `WEBIMAGE_S3_PART_SIZE`.
    static func parse(_ output: String, environment: [String: String]) throws(ValidationError) -> S3Destination? {
        guard let scheme = scheme(of: output) else { return nil }
        if scheme == "file" { return nil }
        guard scheme == "s3" else {
            throw ValidationError("output folder \(output): \(scheme):// is not supported; webimage writes to a local folder "
                + "or to s3://bucket/prefix (img2dataset reaches other stores through fsspec)")
        }
        let rest = output.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = rest.dropFirst(bucket.count).split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        guard !bucket.isEmpty else { throw ValidationError("output folder \(output): no bucket (write s3://bucket/prefix)") }
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let id = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw ValidationError("output folder \(output) needs credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                + "(and AWS_SESSION_TOKEN for temporary ones)")
        }
        var endpoint: URL?
        if let text = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") {
            let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
            guard let url = URL(string: trimmed), let s = url.scheme?.lowercased(), s == "http" || s == "https",
                  url.host?.isEmpty == false else {
                throw ValidationError("AWS_ENDPOINT_URL: not an http(s) URL: \(text)")
            }
            endpoint = url
        }
        var partSize = defaultPartSize
        if let text = value("WEBIMAGE_S3_PART_SIZE") {
            guard let n = Int(text), (minimumPartSize...maximumPartSize).contains(n) else {
                throw ValidationError("WEBIMAGE_S3_PART_SIZE: \(text) is not a byte count from \(minimumPartSize) (5 MiB) "
                    + "to \(maximumPartSize) (5 GiB)")
            }
            partSize = n
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        let signer = SigV4Signer(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
                                 region: region, service: "s3")
        return S3Destination(bucket: bucket, prefix: prefix, endpoint: endpoint, region: region, signer: signer,
                             partSize: partSize)
    }

    /// The request URL and the path that is signed for `key` (the bucket itself for `nil`),
    /// with `query` encoded as the signer encodes it.
    func address(key: String?, query: [(String, String)]) -> (url: String, path: String, host: String) {
        let base = endpoint ?? URL(string: "https://s3.\(region).amazonaws.com")
        let scheme = base?.scheme ?? "https"
        let baseHost = base?.host ?? "s3.amazonaws.com"
        let port = base?.port.map { ":\($0)" } ?? ""
        let basePath = base.map { $0.path == "/" ? "" : $0.path } ?? ""
        // AWS: virtual-hosted where the bucket can be a TLS host name; other stores path-style,
        // which every S3-compatible server speaks.
        let virtualHosted = endpoint == nil && SigV4Signer.isVirtualHostable(bucket: bucket)
        let host = (virtualHosted ? bucket + "." + baseHost : baseHost) + port
        var path = basePath + (virtualHosted ? "" : "/" + SigV4Signer.s3Path(bucket))
        if let key { path += "/" + SigV4Signer.s3Path(key) } else if path.isEmpty { path = "/" }
        let encodedQuery = query.map { SigV4Signer.encode($0.0, keepSlash: false) + "=" + SigV4Signer.encode($0.1, keepSlash: false) }
        let queryText = encodedQuery.isEmpty ? "" : "?" + encodedQuery.joined(separator: "&")
        return ("\(scheme)://\(host)\(path)\(queryText)", path, host)
    }
}
